"""`check` on this host imports only what judging this host needs: each module named here cost
milliseconds of every run (the budget: at most 0.1x `python -m torch.utils.collect_env`)."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import pytest

# module -> why a plain `check` (no --from, no --deep, a kernel log without XIDs) leaves it out
_NOT_NEEDED = {
    "gpudoctor.fleet_summary": "only for --from naming several snapshots",
    "gpudoctor.matrix.xid": "only when the kernel log holds XIDs (and with it tomllib)",
    "gpudoctor.checks.deep_causes": "only to explain a failed --deep import or kernel",
    "importlib.metadata": "dist_info.py reads the few METADATA headers the probes need",
    "email": "importlib.metadata's parser (~8 ms with it)",
    "prometheus_client": "only for --format prometheus and serve",
    "gpudoctor.exporter": "only for serve",
}


def _imported_by_check(tmp_path: Path, modules: list[str]) -> list[str]:
    script = (
        "import sys; from gpudoctor.cli.app import run; "
        f"run(['check', '-o', {str(tmp_path / 'report.txt')!r}]); "
        f"print(' '.join(m for m in {modules!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.split()


def test_check_leaves_out_the_modules_of_other_runs(tmp_path: Path) -> None:
    from gpudoctor.probes import collect_facts

    multigpu = collect_facts(include_docker=False, include_nvml=False).multigpu
    if multigpu.xid_events:
        pytest.skip("this host's kernel log holds XIDs: check needs the XID catalogue")
    assert _imported_by_check(tmp_path, list(_NOT_NEEDED)) == []


def test_check_without_libnvidia_ml_does_not_import_pynvml(tmp_path: Path) -> None:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        pass
    else:
        pytest.skip("libnvidia-ml.so.1 loads here: the probe needs the binding")
    # nvidia-ml-py imports logging (with it ~13 ms in all); the GPU readers need an NVML
    readers = ["gpudoctor.probes.nvml_device", "gpudoctor.probes.nvml_links"]
    assert _imported_by_check(tmp_path, ["pynvml", "logging", *readers]) == []
