"""bitsandbytes' own CUDA setup lines (releases before 0.42, cuda_setup/main.py): the driver's
libcuda.so or the CUDA runtime not found, no GPU read, more than one CUDA runtime, and the
search steps that are no fault. They come through warnings.warn, so the tests paste them with
the "UserWarning: " prefix, which the generic python-warning entry must not take first."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]
HOST = "Driver Version: 535.104.05\n"
_MAIN = "/venv/lib/python3.10/site-packages/bitsandbytes/cuda_setup/main.py:166: UserWarning: "


def test_libcuda_not_found_is_an_error(read: Read, matrix: Matrix) -> None:
    text = (
        "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? "
        "If you are on a cluster, make sure you are on a CUDA machine!\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "bitsandbytes-libcuda-not-found")
    assert found.severity is Severity.ERROR
    assert "CPU library" in found.detail
    # The line that says the runtime was found is no fault.
    ok = HOST + "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so\n"
    assert not warn_or_error(findings_of(read, matrix, ok))


def test_no_libcudart_with_the_userwarning_prefix_and_wrapped(read: Read, matrix: Matrix) -> None:
    text = _MAIN + "WARNING: No libcudart.so found! Install CUDA or the cudatool\nkit package!\n"
    (found,) = error_lines(findings_of(read, matrix, text), "bitsandbytes-libcudart-not-found")
    assert found.severity is Severity.ERROR
    assert "0.43" in found.fix
    assert not error_lines(findings_of(read, matrix, text), "python-warning")


def test_no_gpu_detected_loads_the_cpu_library(read: Read, matrix: Matrix) -> None:
    text = _MAIN + (
        "WARNING: No GPU detected! Check your CUDA paths. Proceeding to load CPU-only library...\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "bitsandbytes-no-gpu-detected")
    assert found.severity is Severity.ERROR


def test_duplicate_cuda_runtimes_is_a_warning(read: Read, matrix: Matrix) -> None:
    text = _MAIN + (
        "Found duplicate ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] files: "
        "{PosixPath('/usr/local/cuda/lib64/libcudart.so'), "
        "PosixPath('/usr/local/cuda/lib64/libcudart.so.11.0')}.. We select the PyTorch default "
        "libcudart.so\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "bitsandbytes-duplicate-cudart")
    assert found.severity is Severity.WARN
    # Another library's duplicate files are not bitsandbytes' CUDA runtimes.
    other = HOST + "Found duplicate libfoo.so files in /opt/lib\n"
    assert not error_lines(findings_of(read, matrix, other), "bitsandbytes-duplicate-cudart")


def test_search_steps_are_information_only(read: Read, matrix: Matrix) -> None:
    steps = (
        _MAIN + "/opt/conda/envs/x did not contain ['libcudart.so', 'libcudart.so.11.0', "
        "'libcudart.so.12.0'] as expected! Searching further paths...\n",
        "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. "
        "Searching in backup paths...\n",
    )
    for step in steps:
        findings = findings_of(read, matrix, HOST + step)
        (found,) = error_lines(findings, "bitsandbytes-cudart-search")
        assert found.severity is Severity.INFO
        assert not warn_or_error(findings)
