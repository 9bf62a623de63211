"""Snapshots recorded on real machines (tests/data/real-hosts/) replay anywhere: they load, every
check runs on them without a crash, and the findings that define each host are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.cli.app import run
from gpudoctor.facts_json import load
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

REAL = Path(__file__).resolve().parents[1] / "data" / "real-hosts"

# (code, severity, subject) that each recorded host must produce.
EXPECTED = {
    "debian12-vm-no-gpu-cuda13-toolkit": {
        ("no-nvidia-gpu", Severity.INFO, ""),
        ("nvml-library-missing", Severity.NA, ""),
        ("nvcc-driver-cuda", Severity.NA, "/usr/local/cuda-13.0"),
    },
}


def test_every_recorded_host_has_expectations() -> None:
    assert {p.stem for p in REAL.glob("*.json")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_host_replays(name: str, matrix: Matrix) -> None:
    facts = load(REAL / f"{name}.json")
    assert facts.redacted
    assert facts.platform.hostname is None
    run_ = run_checks(facts, matrix, Intent())
    got = {(f.code, f.severity, f.subject) for f in run_.findings}
    assert EXPECTED[name] <= got, sorted(EXPECTED[name] - got)
    assert not [f for f in run_.findings if f.code == "check-crashed"]


def test_no_gpu_host_fails_a_gpu_requirement(capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "debian12-vm-no-gpu-cuda13-toolkit.json"
    assert run(["check", "--from", str(path)]) == 0  # nothing is wrong with a host with no GPU
    assert run(["check", "--from", str(path), "--require", "gpus>=1"]) == 1
    assert "requirement-gpus" in capsys.readouterr().out
