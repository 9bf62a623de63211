"""`check --deep` and `snapshot --deep` end to end: on this machine as it is, and as a child
process with a fake torch on PYTHONPATH (found by the frameworks probe, imported by the deep
probe with the same interpreter); --deep with --from is a usage error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from tests.support.fake_torch import NO_KERNEL_IMAGE, make_fake_torch

CODES = ("framework-import", "framework-cuda-available", "framework-kernel")
SNAPSHOT = Path(__file__).resolve().parents[1] / "data" / "hosts" / "h100-8x-healthy.json"


def test_check_deep_on_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", "--deep", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    facts = data["facts"]
    assert [d["name"] for d in facts["deep"]] == [f["name"] for f in facts["frameworks"]]
    assert "deep" in [t["probe"] for t in facts["timings"]]
    deep = [f for f in data["findings"] if f["code"] in CODES]
    if not facts["frameworks"]:  # the system Python of the dev and CI machines
        assert code == 0
        assert [(f["code"], f["severity"]) for f in deep] == [(c, "n/a") for c in CODES]
    else:
        assert all("--deep" not in f["title"] for f in deep)


def test_check_without_deep_imports_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    run(["check", "--format", "json"])
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["deep"] == []
    assert "deep" not in [t["probe"] for t in facts["timings"]]


@pytest.mark.parametrize("extra", [[], ["--from", str(SNAPSHOT)]])
def test_deep_with_from_is_a_usage_error(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["check", "--from", str(SNAPSHOT), "--deep", *extra]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        "error: --deep imports the frameworks on this host, and --from judges a recorded "
        "snapshot: drop one of them"
    )
    assert "Traceback" not in err


def test_a_deep_timeout_below_one_second_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--deep", "--deep-timeout", "0"]) == 2
    assert "--deep-timeout" in capsys.readouterr().err


def test_help_explains_deep(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--deep goes further" in out
    assert "creates a CUDA context" in out
    assert "--deep-timeout" in out


def _gpudoctor(args: list[str], site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    return subprocess.run(
        [sys.executable, "-m", "gpudoctor", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_snapshot_deep_records_what_the_fake_torch_did(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path / "site",
        devices=(("NVIDIA B200", (10, 0)),),
        kernel=f"raise RuntimeError({NO_KERNEL_IMAGE!r})",
    )
    done = _gpudoctor(["snapshot", "--deep", "--no-docker", "--deep-timeout", "30"], site)
    assert done.returncode == 0, done.stderr
    # The fake torch's entry: a host's own jax or tensorflow is probed beside it.
    (deep,) = [d for d in json.loads(done.stdout)["deep"] if d["name"] == "torch"]
    assert deep["python"] == sys.executable
    assert deep["timeout_s"] == 30.0
    assert (deep["outcome"], deep["version"], deep["cuda_available"]) == (
        "ok",
        "2.5.1+cu124",
        True,
    )
    assert deep["devices"] == [{"index": 0, "name": "NVIDIA B200", "compute_capability": "10.0"}]
    assert deep["kernel_error"] == f"RuntimeError: {NO_KERNEL_IMAGE}"


def test_check_deep_reports_an_import_failure(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path / "site",
        init="raise ImportError('libcudnn.so.9: cannot open shared object file')",
    )
    done = _gpudoctor(["check", "--deep", "--only", ",".join(CODES), "--format", "json"], site)
    assert done.returncode == 1, done.stderr
    # The fake torch's findings: a host's own jax or tensorflow gets findings of its own.
    findings = json.loads(done.stdout)["findings"]
    found = {f["code"]: f for f in findings if f["subject"] == "torch"}
    assert found["framework-import"]["severity"] == "error"
    assert found["framework-import"]["title"] == (
        "import torch fails: ImportError: libcudnn.so.9: cannot open shared object file"
    )
    assert found["framework-cuda-available"]["severity"] == "n/a"
