"""Inputs gpudoctor used to accept silently, or judge too kindly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.model import Severity
from gpudoctor.cli.app import run
from gpudoctor.facts import HostFacts, NvmlFacts
from gpudoctor.matrix.load import load_matrix

HOSTS = Path(__file__).parents[1] / "data" / "hosts"


def test_nvml_failing_on_a_host_without_pci_gpus_is_unknown_not_healthy() -> None:
    facts = HostFacts(nvml=NvmlFacts(status="no_permission", error="Insufficient Permissions"))
    findings = run_checks(facts, load_matrix(), strict=True)
    (hit,) = [f for f in findings.findings if f.code == "no-nvidia-gpu"]
    assert hit.severity is Severity.UNKNOWN
    assert "Insufficient Permissions" in hit.title
    assert findings.exit_code == 1  # with --strict an unknown fails


def test_a_cpu_only_host_is_still_simply_without_a_gpu() -> None:
    for status in ("library_not_found", "driver_not_loaded"):
        facts = HostFacts(nvml=NvmlFacts(status=status))
        findings = run_checks(facts, load_matrix()).findings
        (hit,) = [f for f in findings if f.code == "no-nvidia-gpu"]
        assert hit.severity is Severity.INFO


def test_render_from_a_snapshot_without_a_driver_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((HOSTS / "no-gpu-toolkit-only.json").read_text())
    assert data["nvml"]["driver_version"] is None
    assert (
        run(["render", "--framework", "pytorch", "--from", str(HOSTS / "no-gpu-toolkit-only.json")])
        == 2
    )
    assert "no NVIDIA driver version" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--framework", ""],
        ["render", "--tag", ""],
        ["build", "--framework", "pytorch", "--tag", ""],
        ["check", "--from", ""],
        ["render", "--framework", "pytorch", "-o", ""],
        ["render", "--framework=", "--cuda", "12.4"],
    ],
)
def test_empty_values_and_paths_are_errors(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(args) == 2
    assert "empty value" in capsys.readouterr().err
