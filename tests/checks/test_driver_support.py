"""driver-gpu-unsupported: a GPU named next to a driver branch that cannot drive it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import GpuFacts, HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host


def _named(driver: str, name: str, cc: str, **listed: object) -> HostFacts:
    """A host whose GPU is known by name only (lspci, prose) beside a driver version."""
    facts = host("h100-8x-healthy")
    gpu = GpuFacts(index=0, name=name, compute_capability=cc, **listed)  # type: ignore[arg-type]
    nvml = replace(facts.nvml, driver_version=driver, gpus=(gpu,), status="not_run")
    return replace(facts, nvml=nvml)


def _verdict(facts: HostFacts, matrix: Matrix, code: str = "driver-gpu-unsupported"):
    return [f for f in run_checks(facts, matrix).findings if f.code == code]


@pytest.mark.parametrize(
    ("driver", "name", "cc", "severity", "says"),
    [
        # Blackwell came with CUDA 12.8 (R570); R550 runs CUDA 12.4 at most
        ("550.120", "GeForce RTX 5090", "12.0", Severity.ERROR, "CUDA 12.8"),
        ("570.133.07", "GeForce RTX 5090", "12.0", Severity.OK, "570.133.07"),
        # one release of slack: R560 runs CUDA 12.6, the release before 12.8, so not judged
        ("560.35.03", "GeForce RTX 5090", "12.0", Severity.OK, "560.35.03"),
        # Hopper came with CUDA 11.8; R510 runs 11.6, two releases behind
        ("510.108.03", "H100 PCIe", "9.0", Severity.ERROR, "driver 510.108.03 runs CUDA 11.6"),
        # R470 is the last branch for Kepler
        ("535.183.01", "GeForce GTX 780 Ti", "3.5", Severity.ERROR, "R470 is the last"),
        ("470.256.02", "GeForce GTX 780 Ti", "3.5", Severity.OK, "470.256.02"),
        # R580 is the last for Pascal: a later branch no longer drives it
        ("590.44.01", "Tesla P100-PCIE-16GB", "6.0", Severity.ERROR, "R580 is the last"),
    ],
)
def test_driver_branch_against_the_named_gpu(  # noqa: PLR0917 - the parametrized row
    matrix: Matrix, driver: str, name: str, cc: str, severity: Severity, says: str
) -> None:
    [hit] = _verdict(_named(driver, name, cc), matrix)
    assert hit.severity is severity
    assert says in f"{hit.title} {hit.detail}"


def test_the_fix_names_the_branch_to_install(matrix: Matrix) -> None:
    [new] = _verdict(_named("550.120", "GeForce RTX 5090", "12.0"), matrix)
    assert ">= 570" in new.fix
    assert "open kernel modules" in new.fix
    [old] = _verdict(_named("535.183.01", "GeForce GTX 780 Ti", "3.5"), matrix)
    assert "R470" in old.fix


def test_a_gpu_the_driver_listed_is_never_judged(matrix: Matrix) -> None:
    """NVML only lists GPUs its driver drives: a UUID or memory size says it did."""
    listed = _named("550.120", "GeForce RTX 5090", "12.0", uuid="GPU-0f5b3e7e-1234")
    [hit] = _verdict(listed, matrix)
    assert hit.severity is Severity.NA


def test_open_module_required_steps_aside_for_a_branch_older_than_the_gpu(
    matrix: Matrix,
) -> None:
    facts = _named("550.120", "GeForce RTX 5090", "12.0")
    facts = replace(facts, kernel=replace(facts.kernel, nvidia_module_flavor="proprietary"))
    [open_module] = _verdict(facts, matrix, "open-module-required")
    assert open_module.severity is not Severity.ERROR
    newer = _named("570.133.07", "GeForce RTX 5090", "12.0")
    newer = replace(newer, kernel=replace(newer.kernel, nvidia_module_flavor="proprietary"))
    [open_module] = _verdict(newer, matrix, "open-module-required")
    assert open_module.severity is Severity.ERROR


def test_a_pasted_gpu_and_older_driver_get_one_cause(matrix: Matrix) -> None:
    """lspci's GPU, the kernel module's version and nvidia-smi finding nothing: the driver
    branch is the cause, and the nvidia-smi line it explains is not a second error."""
    from gpudoctor.pasted.dispatch import read_report

    paste = (
        "$ lspci | grep -i nvidia\n"
        "01:00.0 VGA compatible controller: NVIDIA Corporation GB202 [GeForce RTX 5090] (rev a1)\n"
        "$ nvidia-smi\nNo devices were found\n"
        "$ cat /proc/driver/nvidia/version\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"
    )
    facts = read_report(paste, "paste.txt", matrix.architectures)
    bad = [
        (f.code, f.severity)
        for f in run_checks(facts, matrix).findings
        if f.severity in (Severity.WARN, Severity.ERROR)
    ]
    assert bad == [("driver-gpu-unsupported", Severity.ERROR)]


@pytest.mark.parametrize(
    ("driver", "severity"),
    [
        ("550", Severity.ERROR),  # a branch told alone, as people write it
        ("560", Severity.OK),  # its newest release runs CUDA 12.6: within the slack
        ("550.54.15+open", Severity.ERROR),
        ("N/A", Severity.NA),
        ("rolling", Severity.NA),
        ("0.1", Severity.NA),  # older than every CUDA release the matrix has
        ("\uff11\uff12\uff13", Severity.NA),  # full-width digits
    ],
)
def test_driver_texts_as_pasted(matrix: Matrix, driver: str, severity: Severity) -> None:
    [hit] = _verdict(_named(driver, "GeForce RTX 5090", "12.0"), matrix)
    assert hit.severity is severity
