"""The "vGPU Software Licensed Product" block of pasted `nvidia-smi -q` and `-q -x` into the
licence the vgpu-license check judges: licensed (with its expiry), unlicensed (restricted or
not), expired, and a passthrough GPU without the block. The status lines follow nvidia-smi's
output as quoted in public documentation and scripts ("Licensed (Expiry: 2023-1-31 11:32:22
GMT)", "Unlicensed (Restricted)"); no vGPU guest was available to record here."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts, VgpuLicense
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.smi_query import license_status

Read = Callable[[str], HostFacts]


def smi_q(mode: str, status: str | None) -> str:
    block = (
        "    vGPU Software Licensed Product\n"
        "        Product Name                      : NVIDIA Virtual Compute Server\n"
        f"        License Status                    : {status}\n"
        if status is not None
        else ""
    )
    return (
        "==============NVSMI LOG==============\n\n"
        "Timestamp                                 : Tue Jun  3 10:00:00 2025\n"
        "Driver Version                            : 580.65.06\n"
        "CUDA Version                              : 13.0\n\n"
        "Attached GPUs                             : 1\n"
        "GPU 00000000:02:00.0\n"
        "    Product Name                          : GRID A100D-40C\n"
        "    GPU Virtualization Mode\n"
        f"        Virtualization Mode               : {mode}\n"
        "        Host VGPU Mode                    : N/A\n" + block
    )


def smi_x(status: str) -> str:
    return (
        '<?xml version="1.0" ?>\n<nvidia_smi_log>\n'
        "\t<driver_version>580.105.08</driver_version>\n"
        "\t<attached_gpus>1</attached_gpus>\n"
        '\t<gpu id="00000000:00:07.0">\n'
        "\t\t<product_name>NVIDIA L40S-2Q</product_name>\n"
        "\t\t<gpu_virtualization_mode>\n"
        "\t\t\t<virtualization_mode>VGPU</virtualization_mode>\n"
        "\t\t</gpu_virtualization_mode>\n"
        "\t\t<vgpu_software_licensed_product>\n"
        "\t\t\t<licensed_product_name>NVIDIA RTX Virtual Workstation</licensed_product_name>\n"
        f"\t\t\t<license_status>{status}</license_status>\n"
        "\t\t</vgpu_software_licensed_product>\n"
        "\t</gpu>\n</nvidia_smi_log>\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Licensed (Expiry: 2023-1-31 11:32:22 GMT)", ("licensed", "2023-01-31T11:32:22Z")),
        ("Licensed (Expiry: 2026-7-7 16:1:44 GMT)", ("licensed", "2026-07-07T16:01:44Z")),
        ("Licensed", ("licensed", None)),
        ("Unlicensed (Restricted)", ("unlicensed_restricted", None)),
        ("Unlicensed (Unrestricted)", ("unlicensed_unrestricted", None)),
        ("Unlicensed", ("unlicensed", None)),
        ("Something else", None),
    ],
)
def test_license_status_lines(text: str, expected: tuple[str, str | None] | None) -> None:
    assert license_status(text) == expected


def licence_finding(facts: HostFacts, matrix: Matrix) -> tuple[Severity, str]:
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "vgpu-license"]
    return found.severity, found.title


def test_query_licensed_not_yet_expired(read: Read, matrix: Matrix) -> None:
    facts = read(smi_q("VGPU", "Licensed (Expiry: 2099-1-31 11:32:22 GMT)"))
    (gpu,) = facts.nvml.gpus
    assert gpu.name == "GRID A100D-40C"  # the block's Product Name is not the GPU's
    assert gpu.vgpu_license == VgpuLicense(
        "licensed", "NVIDIA Virtual Compute Server", "2099-01-31T11:32:22Z"
    )
    severity, title = licence_finding(facts, matrix)
    assert severity is Severity.OK
    assert "NVIDIA Virtual Compute Server" in title


def test_query_unlicensed_is_an_error(read: Read, matrix: Matrix) -> None:
    facts = read(smi_q("VGPU", "Unlicensed (Restricted)"))
    assert licence_finding(facts, matrix)[0] is Severity.ERROR
    run = run_checks(facts, matrix)
    assert run.exit_code == 1


def test_xml_licensed_with_an_expiry(read: Read, matrix: Matrix) -> None:
    facts = read(smi_x("Licensed (Expiry: 2024-7-7 16:1:44 GMT)"))
    (gpu,) = facts.nvml.gpus
    assert gpu.virtualization_mode == "vgpu"
    assert gpu.vgpu_license == VgpuLicense(
        "licensed", "NVIDIA RTX Virtual Workstation", "2024-07-07T16:01:44Z"
    )
    # A paste has no collection time to judge the expiry against; nvidia-smi printed
    # "Licensed", so the guest was licensed when the paste was taken.
    assert licence_finding(facts, matrix) == (
        Severity.OK,
        "licensed: NVIDIA RTX Virtual Workstation until 2024-07-07T16:01:44Z",
    )


def test_passthrough_without_the_block(read: Read, matrix: Matrix) -> None:
    facts = read(smi_q("Pass-Through", None))
    (gpu,) = facts.nvml.gpus
    assert (gpu.virtualization_mode, gpu.vgpu_license) == ("passthrough", None)
    assert licence_finding(facts, matrix)[0] is Severity.NA


def test_a_vgpu_paste_without_the_block_is_unknown(read: Read, matrix: Matrix) -> None:
    facts = read(smi_q("VGPU", None))
    assert licence_finding(facts, matrix) == (Severity.UNKNOWN, "vGPU licence state not reported")
