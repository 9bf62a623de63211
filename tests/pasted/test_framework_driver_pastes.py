"""A framework build judged against the driver from what a paste shows of it: nvidia-smi's
"CUDA Version" alone (the header's right-hand number, or told in prose) settles the tier as the
driver version does (compat.tiers.driver_tier), so a torch built with a newer CUDA major than the
driver supports is an error, and one within the driver's CUDA is fine, with no driver version
pasted."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def _driver_cuda(found: list[Finding], subject: str) -> Finding:
    (one,) = [f for f in found if f.code == "framework-driver-cuda" and f.subject == subject]
    return one


def test_a_cuda_major_above_the_drivers_cuda_is_an_error(read: Read, matrix: Matrix) -> None:
    text = (
        "I have torch 2.4.0+cu124 installed. nvidia-smi says CUDA Version: 11.7 "
        "(GeForce GTX 1080 Ti). torch.cuda.is_available() is False.\n"
    )
    facts = read(text)
    assert facts.nvml.driver_version is None
    assert facts.nvml.cuda_driver_version == "11.7"
    found = _driver_cuda(findings_of(read, matrix, text), "torch")
    assert found.severity is Severity.ERROR
    assert "CUDA 11.7" in found.title
    assert "12.4" in found.title
    # the fix names the driver the build's CUDA major needs (its minor-version floor)
    assert "525.60.13" in found.fix


def test_within_the_drivers_cuda_major_it_runs(read: Read, matrix: Matrix) -> None:
    for said, severity in (("12.2", Severity.OK), ("12.0", Severity.INFO)):
        text = f"torch 2.1.2+cu121 on NVIDIA GeForce RTX 3090, nvidia-smi CUDA Version: {said}\n"
        found = findings_of(read, matrix, text)
        assert _driver_cuda(found, "torch").severity is severity, said
        assert not warn_or_error(found), said


def test_the_driver_version_still_decides_where_it_is_shown(read: Read, matrix: Matrix) -> None:
    # driver 450.80.02 is CUDA 11's minor-version floor: a cu118 build runs there
    text = (
        "PyTorch version: 2.0.1+cu118\nCUDA used to build PyTorch: 11.8\n"
        "GPU models and configuration: GPU 0: Tesla T4\nNvidia driver version: 450.80.02\n"
    )
    assert _driver_cuda(findings_of(read, matrix, text), "torch").severity is Severity.INFO
