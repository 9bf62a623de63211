"""Windows' start-up refusal for a DLL its loader did not find (STATUS_DLL_NOT_FOUND): the NVIDIA
driver's own DLLs (nvcuda.dll, nvml.dll) are a missing driver; a CUDA or cuDNN library DLL is a
release of the toolkit that is not installed or not on PATH, its number taken from the name."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, error_lines, findings_of

_CODES = ("windows-driver-dll-not-found", "windows-cuda-dll-not-found")


def _named(read: Read, matrix: Matrix, text: str) -> list[tuple[str, Severity, str]]:
    shown = findings_of(read, matrix, text)
    return [(c, f.severity, f.detail or "") for c in _CODES for f in error_lines(shown, c)]


@pytest.mark.parametrize(
    ("line", "code", "said"),
    [
        (
            "The code execution cannot proceed because nvcuda.dll was not found. Reinstalling "
            "the program may fix this problem.",
            "windows-driver-dll-not-found",
            "nvcuda.dll",
        ),
        (
            "The code execution cannot proceed because cudart64_12.dll was not found. "
            "Reinstalling the program may fix this problem.",
            "windows-cuda-dll-not-found",
            "numbered 12",
        ),
        (
            "The program can't start because cublasLt64_11.dll is missing from your computer.",
            "windows-cuda-dll-not-found",
            "cublasLt of the CUDA (or cuDNN) release numbered 11",
        ),
    ],
)
def test_a_missing_nvidia_dll_is_named_with_its_name(
    read: Read, matrix: Matrix, line: str, code: str, said: str
) -> None:
    ((subject, severity, detail),) = _named(read, matrix, line + "\n")
    assert (subject, severity) == (code, Severity.ERROR)
    assert said in detail


def test_another_programs_missing_dll_is_not_an_nvidia_one(read: Read, matrix: Matrix) -> None:
    text = (
        "The code execution cannot proceed because MSVCP140.dll was not found. Reinstalling the "
        "program may fix this problem.\n"
    )
    try:
        shown = _named(read, matrix, text)
    except FactsError:  # unread: the other right answer
        return
    assert shown == []
