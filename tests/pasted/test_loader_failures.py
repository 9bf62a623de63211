"""Failures of the loader itself: CPython's "DLL load failed while importing X" on Windows and
TensorFlow's/XLA's CUDA runtime stub that could not load libcudart at all."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


def test_a_windows_dll_load_failure_names_the_module(read: Read, matrix: Matrix) -> None:
    paste = (
        "Traceback (most recent call last):\n"
        '  File "C:\\\\venv\\\\lib\\\\site-packages\\\\torch\\\\__init__.py", line 141,'
        " in <module>\n"
        "    from torch._C import *\n"
        "ImportError: DLL load failed while importing _C: The specified module could not be "
        "found.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, paste), "python-dll-load-failed")
    assert found.severity.value == "error"
    assert "extension module _C" in found.detail
    assert "Visual C++ Redistributable" in found.fix
    # near miss: a Linux loader error is another entry's
    other = (
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    )
    assert error_lines(findings_of(read, matrix, other), "python-dll-load-failed") == []


def test_the_cudart_stub_that_loaded_nothing_is_named(read: Read, matrix: Matrix) -> None:
    paste = (
        "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. "
        "Status: cudaGetErrorString symbol not found.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, paste), "cudart-stub-unloaded")
    assert found.severity.value == "error"
    assert "libcudart" in found.detail
    # near miss: another symbol a program could not find is not this stub's answer
    other = "OSError: /opt/app/libfoo.so: undefined symbol: cudaGetErrorString\n"
    assert error_lines(findings_of(read, matrix, other), "cudart-stub-unloaded") == []
