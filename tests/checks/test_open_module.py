"""open-module-required: the proprietary kernel module loaded on a GPU that only the open flavor
drives (Blackwell and later, the matrix's `open_module_only`), from a pasted report."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_PROC = {
    "proprietary": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.04  Release Build\n",
    "open": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.04  Release Build\n",
}
_SMI = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"


def _lspci(model: str) -> str:
    return (
        f"01:00.0 VGA compatible controller: NVIDIA Corporation GB202 [{model}] (rev a1)\n"
        "\tKernel driver in use: nvidia\n"
    )


def _run(text: str, matrix: Matrix) -> list[Finding]:
    return list(run_checks(read_report(text, "report.txt", matrix.architectures), matrix).findings)


def _open_module(findings: list[Finding]) -> Finding:
    (found,) = [f for f in findings if f.code == "open-module-required"]
    return found


def test_proprietary_module_on_a_blackwell_gpu_is_an_error(matrix: Matrix) -> None:
    findings = _run(_PROC["proprietary"] + _lspci("GeForce RTX 5090") + _SMI, matrix)
    found = _open_module(findings)
    assert found.severity is Severity.ERROR
    assert "GeForce RTX 5090" in found.title
    assert "-M=open" in found.fix
    # nvidia-smi's failure is explained by it, not a second error with another fix
    (line,) = [f for f in findings if f.subject == "nvidia-smi-no-driver"]
    assert line.severity is Severity.INFO


@pytest.mark.parametrize(
    ("flavor", "model", "severity"),
    [
        ("open", "GeForce RTX 5090", Severity.OK),  # the flavor it needs
        ("proprietary", "GeForce RTX 4090", Severity.NA),  # Ada: the proprietary flavor drives it
    ],
)
def test_near_misses(flavor: str, model: str, severity: Severity, matrix: Matrix) -> None:
    assert _open_module(_run(_PROC[flavor] + _lspci(model), matrix)).severity is severity


def test_matrix_marks_blackwell_and_not_hopper(matrix: Matrix) -> None:
    marked = {a.compute_capability for a in matrix.architectures if a.open_module_only}
    assert {"10.0", "12.0", "12.1"} <= marked
    assert "9.0" not in marked
