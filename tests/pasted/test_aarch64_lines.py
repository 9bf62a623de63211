"""Arm hosts' lines: lscpu's architecture, and PyTorch's capability-range warning (a GPU's name
and compute capability, as a DGX Spark prints it), with the near misses that must not read."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]

_WARNING = (
    "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda "
    "capability supported by this version of PyTorch is (8.0) - (12.0)\n"
)


def test_lscpu_names_the_machine(read: Read) -> None:
    text = "$ lscpu\nArchitecture:           aarch64\n  CPU op-mode(s):       32-bit, 64-bit\n"
    assert read(text + "torch 2.5.1\n").platform.machine == "aarch64"
    assert read("Architecture: x86_64\ntorch 2.5.1\n").platform.machine == "x86_64"
    # near miss: a sentence about an architecture is no lscpu line
    prose = "The CPU Architecture: aarch64 or x86_64, both fail\ntorch 2.5.1\n"
    assert read(prose).platform.machine is None


def test_pytorchs_capability_warning_names_the_gpu(read: Read, matrix: Matrix) -> None:
    facts = read(_WARNING)
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA GB10", "12.1")
    # the warning alone is no fault: 12.0 kernels run on a 12.1 GPU (same major), so nothing
    # in the report is an error or a warning
    run = run_checks(facts, matrix)
    assert [f.code for f in run.findings if f.severity in (Severity.ERROR, Severity.WARN)] == []
