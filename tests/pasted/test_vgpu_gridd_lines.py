"""The vGPU licence client's own log lines (nvidia-gridd; the NVIDIA Display Container LS log on
Windows) pasted: an unlicensed guest and a failed acquisition are named, a licensed or returned
licence raises no warning, other software's licence words are not named, and a line that says
what nvidia-smi -q already judged links to that finding (one judgement, not two)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import match_signature
from tests.support.pasted_findings import error_lines, findings_of, named_lines, warn_or_error

Read = Callable[[str], HostFacts]

# nvidia-smi -q of a vGPU guest whose licence client holds no licence (the block as
# tests/pasted/test_vgpu_license.py writes it)
UNLICENSED_SMI_Q = (
    "==============NVSMI LOG==============\n\n"
    "Driver Version                            : 580.65.06\n"
    "CUDA Version                              : 13.0\n\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:02:00.0\n"
    "    Product Name                          : GRID A100D-40C\n"
    "    GPU Virtualization Mode\n"
    "        Virtualization Mode               : VGPU\n"
    "        Host VGPU Mode                    : N/A\n"
    "    vGPU Software Licensed Product\n"
    "        Product Name                      : NVIDIA Virtual Compute Server\n"
    "        License Status                    : Unlicensed (Restricted)\n"
)


@pytest.mark.parametrize(
    ("line", "code", "severity"),
    [
        (
            "May 22 02:46:38 vm1 nvidia-gridd: Valid GRID license not found. GPU features and "
            "performance will be restricted. To enable full functionality please configure "
            "licensing details.",
            "vgpu-gridd-unlicensed",
            Severity.ERROR,
        ),
        (
            "Tue Dec 20 17:25:16 2022:<1>:Valid GRID license not found. GPU features and "
            "performance will be restricted. To enable full functionality please configure "
            "licensing details.",
            "vgpu-gridd-unlicensed",
            Severity.ERROR,
        ),
        (
            "Dec 03 06:10:11 vm1 nvidia-gridd[1201]: Failed to acquire license from 10.0.0.5 "
            "(Info: NVIDIA Virtual Compute Server - Error: The allowed time to process response "
            "has expired)",
            "vgpu-license-acquire-failed",
            Severity.ERROR,
        ),
    ],
)
def test_line_is_named_with_its_severity(
    read: Read, matrix: Matrix, line: str, code: str, severity: Severity
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", code)
    assert found.severity is severity


def test_failed_acquisition_carries_the_server_and_the_reason(read: Read, matrix: Matrix) -> None:
    line = (
        "Tue Jan 21 19:54:14 2025:<1>:Failed to acquire license from licence.example.org (Info: "
        "NVIDIA RTX Virtual Workstation - Error: No pool features found for : NVIDIA RTX "
        "Virtual Workstation)\n"
    )
    (found,) = named_lines(read, matrix, line, "vgpu-license-acquire-failed")
    assert "licence.example.org" in found.detail
    assert "No pool features found for : NVIDIA RTX Virtual Workstation" in found.detail
    assert "licence.example.org" in found.fix


@pytest.mark.parametrize(
    "line",
    [
        "nvidia-gridd: License acquired successfully. (Info: 192.168.178.110, NVIDIA RTX "
        "Virtual Workstation; Expiry: 2022-12-21 16:25:16 GMT)",
        "nvidia-gridd: License acquired successfully. (Info: http://10.103.15.200:7070/request; "
        "NVIDIA Virtual Compute Server)",
        "nvidia-gridd: License returned successfully. (Info: 192.168.178.33)",
    ],
)
def test_licensed_gridd_lines_raise_no_warning(read: Read, matrix: Matrix, line: str) -> None:
    findings = findings_of(read, matrix, line + "\n")
    (found,) = [f for f in findings if f.code == "report-error" and f.severity is Severity.INFO]
    assert ("error", "vgpu-license-acquired") in found.evidence or (
        "error",
        "vgpu-license-returned",
    ) in found.evidence
    assert [w for w in warn_or_error(findings) if w[0] == "report-error"] == []


@pytest.mark.parametrize(
    "line",
    [
        "ERROR Failed to acquire license from https://license.example.com/api after 30 seconds",
        "Valid license not found for product FooCAD",
    ],
)
def test_other_licence_words_are_not_named(line: str) -> None:
    found = match_signature(line)
    assert found is None or found.code not in {
        "vgpu-license-acquire-failed",
        "vgpu-gridd-unlicensed",
    }


def test_gridd_line_and_unlicensed_smi_are_one_judgement(read: Read, matrix: Matrix) -> None:
    """nvidia-smi -q says the vGPU is unlicensed; the gridd line says the same: the check judges
    it, and the line links to that finding instead of standing as a second error."""
    text = UNLICENSED_SMI_Q + (
        "\n$ journalctl -u nvidia-gridd\n"
        "Dec 03 06:10:11 vm1 nvidia-gridd[1201]: Valid GRID license not found. GPU features and "
        "performance will be restricted. To enable full functionality please configure "
        "licensing details.\n"
    )
    findings = findings_of(read, matrix, text)
    (licence,) = [f for f in findings if f.code == "vgpu-license"]
    assert licence.severity is Severity.ERROR
    (line,) = error_lines(findings, "vgpu-gridd-unlicensed")
    assert line.severity is not Severity.ERROR
