"""A "CUDA error" line of a paste is named by its code, in the toolkit's own words, with the fix
of the part of the system the code points at; PyTorch's out-of-memory error says how much it
asked for. Each paste is written here in the form the tools print, not taken from a thread."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import named_lines

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "name", "where"),
    [
        ("RuntimeError: CUDA error: misaligned address", "cudaErrorMisalignedAddress", "program"),
        (
            "E cuda_driver.cc:152] failed call to cuInit: CUDA_ERROR_ECC_UNCORRECTABLE",
            "CUDA_ERROR_ECC_UNCORRECTABLE",
            "kernel log",
        ),
        (
            "CUDA failure 2: out of memory ; GPU=0 ; hostname=x",
            "cudaErrorMemoryAllocation",
            "memory",
        ),
        # an entry before the generic one owns its line
        ("CUDA failure 46: CUDA-capable device(s) is/are busy or unavailable", "", ""),
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "",
            "",
        ),
        ("cudaErrorMpsConnectionFailed", "cudaErrorMpsConnectionFailed", "MPS"),
    ],
)
def test_a_cuda_error_line_is_named_by_its_code(
    read: Read, matrix: Matrix, line: str, name: str, where: str
) -> None:
    found = named_lines(read, matrix, f"Traceback (most recent call last):\n{line}\n", "cuda-error")
    if not name:  # an entry above this generic one owns the line
        assert not found
        return
    (error,) = found
    assert error.severity is Severity.ERROR
    assert error.detail.startswith(name)
    assert where in error.fix


def test_a_code_only_the_program_knows_is_still_an_error_line(read: Read, matrix: Matrix) -> None:
    (error,) = named_lines(read, matrix, "CUDA error: kernel foo gave up\n", "cuda-error")
    assert "the program's own words" in error.detail


@pytest.mark.parametrize(
    "prose",
    [
        "I get a CUDA error when I run the model on two GPUs\n",
        "no CUDA errors so far, training runs at 3 it/s\n",
    ],
)
def test_prose_about_cuda_errors_is_no_error_line(read: Read, matrix: Matrix, prose: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + prose)
    assert facts.report is not None
    assert facts.nvml.driver_version == "550.54.15"
    assert not [e for e in facts.report.errors if e.code == "cuda-error"]


def test_out_of_memory_says_how_much_was_asked(read: Read, matrix: Matrix) -> None:
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a "
        "total capacity of 79.19 GiB of which 1.02 GiB is free.\n"
    )
    (error,) = named_lines(read, matrix, text, "cuda-out-of-memory")
    assert "1.50 GiB" in error.detail
    assert "nvidia-smi" in error.fix
    # a line that only quotes the message's start is not the error
    assert not named_lines(
        read, matrix, "Driver Version: 550.54.15\nCUDA out of memory?\n", "cuda-out-of-memory"
    )
