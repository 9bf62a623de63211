"""Without libnvidia-ml.so.1 the probe records library_not_found without importing pynvml
(~13 ms of every `check`), and the facts are the ones the binding's own nvmlInit gives."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pynvml
import pytest

from gpudoctor.facts_json import to_dict
from gpudoctor.probes.nvml import probe_nvml
from tests.support.nvml_rig import SCENARIOS, FakeNvml

_PRINT = (
    "import json, sys\n"
    "from gpudoctor.facts_json import to_dict\n"
    "from gpudoctor.probes.nvml import probe_nvml\n"
    "facts, issues = probe_nvml()\n"
    "print(json.dumps({'imported': 'pynvml' in sys.modules, 'nvml': to_dict(facts),\n"
    "                  'issues': to_dict(issues)}))\n"
)


def _library_loads() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


needs_no_library = pytest.mark.skipif(
    _library_loads(), reason="libnvidia-ml.so.1 loads on this host"
)


def _probe(tmp_path: Path, **env: str) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", _PRINT],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@needs_no_library
def test_missing_library_gives_the_bindings_facts_without_importing_them(tmp_path: Path) -> None:
    empty = tmp_path / "no-lib"
    empty.mkdir()
    unimported = _probe(tmp_path, LD_LIBRARY_PATH=str(empty))
    assert unimported["imported"] is False
    facts, issues = probe_nvml(pynvml)  # the binding itself fails to load the library
    assert facts.status == "library_not_found"
    assert facts.bindings_package == "nvidia-ml-py"
    assert unimported["nvml"] == to_dict(facts)
    assert unimported["issues"] == to_dict(issues)


@needs_no_library
def test_unimported_unofficial_binding_is_still_flagged_as_shadowing(tmp_path: Path) -> None:
    # gpuopenanalytics/pynvml's old module: the same API, no _nvmlGetFunctionPointer
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "pynvml.py").write_text("def nvmlInit():\n    pass\n", encoding="utf-8")
    result = _probe(tmp_path, PYTHONPATH=os.pathsep.join([str(shadow), *sys.path]))
    assert result["imported"] is False
    nvml = result["nvml"]
    assert isinstance(nvml, dict)
    assert (nvml["status"], nvml["bindings_package"], nvml["bindings_shadowed"]) == (
        "library_not_found",
        None,
        True,
    )


def test_a_loadable_library_is_read_through_the_binding(
    fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    result = _probe(
        tmp_path,
        LD_LIBRARY_PATH=str(fake_nvml.libs["current"]),
        FAKE_NVML_SCENARIO=str(SCENARIOS / "healthy_8x_h100.txt"),
    )
    assert result["imported"] is True
    nvml = result["nvml"]
    assert isinstance(nvml, dict)
    assert (nvml["status"], len(nvml["gpus"])) == ("ok", 8)
