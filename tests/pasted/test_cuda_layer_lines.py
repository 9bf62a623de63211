"""The CUDA layer as users paste it: torch's failures of cudaGetDeviceCount (driver
initialization, unknown error, any other code), a CUDA call's code printed as a number or as the
runtime's message without the enumerator's name (glog's CHECK_EQ, "cudaMalloc failed: ...", the
numba's "[N] Call to cuInit"), and the build errors of a missing
CUDA toolkit (headers, libraries, CMake's FindCUDAToolkit). Each line is written in the
program's own format; each has a near miss that must not be named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.cuda_errors import describe
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import named_lines

Read = Callable[[str], HostFacts]


def _named(read: Read, matrix: Matrix, text: str) -> list[str]:
    findings = run_checks(read(text), matrix).findings
    return [f.subject for f in findings if f.code == "report-error"]


_INIT = "CUDA driver initialization failed, you might not have a CUDA gpu."


@pytest.mark.parametrize(
    "line",
    [
        f"RuntimeError: {_INIT}",
        f"[W CUDAFunctions.cpp:108] Warning: CUDA initialization: {_INIT} (function operator())",
        "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:138: UserWarning: CUDA "
        f"initialization: {_INIT} (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
    ],
)
def test_torchs_driver_initialization_failure_is_named(
    read: Read, matrix: Matrix, line: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "torch-cuda-init-failed")
    assert error.severity is Severity.ERROR
    assert "cudaErrorInitializationError (3)" in error.detail
    assert "/dev/nvidia" in error.fix
    # the warning form is this entry's, not an unknown Python warning
    assert "python-warning" not in _named(read, matrix, line + "\n")


def test_torchs_unknown_error_is_named_in_its_runtimeerror_form(read: Read, matrix: Matrix) -> None:
    line = (
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up "
        "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. "
        "Setting the available devices to be zero.\n"
    )
    (error,) = named_lines(read, matrix, line, "cuda-unknown-error")
    assert error.severity is Severity.ERROR
    assert "nvidia_uvm" in error.fix


@pytest.mark.parametrize(
    "prose",
    [
        "Driver Version: 550.54.15\nthe CUDA driver initialization failed once, then it worked\n",
        "Driver Version: 550.54.15\nwhy does CUDA give an unknown error here?\n",
    ],
)
def test_prose_about_cuda_initialization_is_not_named(
    read: Read, matrix: Matrix, prose: str
) -> None:
    named = _named(read, matrix, prose)
    assert "torch-cuda-init-failed" not in named
    assert "cuda-unknown-error" not in named


_COUNT = (
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
    "before calling NumCudaDevices() that might have already set an error? "
)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Error 3: initialization error", "cudaErrorInitializationError (3)"),
        ("Error 999: unknown error", "cudaErrorUnknown (999)"),
        ("Error 4: driver shutting down", "cudaErrorCudartUnloading (4)"),
    ],
)
def test_torchs_device_count_error_carries_the_code(
    read: Read, matrix: Matrix, said: str, name: str
) -> None:
    (error,) = named_lines(read, matrix, _COUNT + said + "\n", "torch-device-count-error")
    assert error.severity is Severity.ERROR
    assert name in error.detail


def test_a_device_count_code_with_its_own_entry_keeps_it(read: Read, matrix: Matrix) -> None:
    text = _COUNT + "Error 803: system has unsupported display driver / cuda driver combination\n"
    assert _named(read, matrix, text) == ["cuda-driver-mismatch-803"]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Check failed: cuInit(0) == CUDA_SUCCESS (999 vs. 0)", "CUDA_ERROR_UNKNOWN (999)"),
        (
            "F1203 10:00:00.123456  1234 gpu_init.cc:42] Check failed: cuInit(0) == "
            "CUDA_SUCCESS (100 vs. 0)",
            "CUDA_ERROR_NO_DEVICE (100)",
        ),
        (
            "F0103 12:00:00.000000 12345 syncedmem.cpp:71] Check failed: error == cudaSuccess "
            "(700 vs. 0)",
            "cudaErrorIllegalAddress (700)",
        ),
        ("cudaMalloc failed: initialization error", "cudaErrorInitializationError (3)"),
        ("cudaMemcpy failed: invalid argument", "cudaErrorInvalidValue (1)"),
        (
            "numba.cuda.cudadrv.driver.CudaAPIError: [804] Call to cuInit results in "
            "UNKNOWN_CUDA_ERROR",
            "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)",
        ),
    ],
)
def test_a_cuda_calls_numbered_code_is_named(
    read: Read, matrix: Matrix, line: str, name: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-call-failed")
    assert error.severity is Severity.ERROR
    assert error.detail.startswith(f"a CUDA call failed with {name}")


@pytest.mark.parametrize(
    "line",
    [
        "Check failed: x == y (3 vs. 0)",
        "the cudaMalloc call returned quickly",
        "current returned 5",
        "cudaMalloc failed",
    ],
)
def test_near_misses_of_a_numbered_code_are_not_named(
    read: Read, matrix: Matrix, line: str
) -> None:
    text = "Driver Version: 550.54.15\n" + line + "\n"
    assert "cuda-call-failed" not in _named(read, matrix, text)


@pytest.mark.parametrize(
    ("said", "success", "name"),
    [
        ("cuInit(0) == CUDA_SUCCESS (3 vs. 0)", "driver", "CUDA_ERROR_NOT_INITIALIZED"),
        ("error == cudaSuccess (3 vs. 0)", "runtime", "cudaErrorInitializationError"),
        ("[100] Call to cuDeviceGet results in CUDA_ERROR_NO_DEVICE", "driver", ""),
    ],
)
def test_the_number_is_read_in_the_table_of_its_api(said: str, success: str, name: str) -> None:
    error = describe(said)
    assert error is not None
    assert error.api == success
    assert error.name == (name or "CUDA_ERROR_NO_DEVICE")


@pytest.mark.parametrize(
    ("line", "header"),
    [
        ("fatal error: cuda_runtime.h: No such file or directory", "cuda_runtime.h"),
        ("csrc/kernel.cu:1:10: fatal error: cuda.h: No such file or directory", "cuda.h"),
        ("src/ops.cpp:3:10: fatal error: 'cublas_v2.h' file not found", "cublas_v2.h"),
        (
            "C:\\src\\x.cpp(2): fatal error C1083: Cannot open include file: 'cuda_runtime.h': "
            "No such file or directory",
            "cuda_runtime.h",
        ),
        (
            "cupy.cuda.compiler.CompileException: /tmp/tmpab/kern.cu(1): catastrophic error: "
            'cannot open source file "cuda_fp16.h"',
            "cuda_fp16.h",
        ),
        (
            "fatal error: thrust/device_vector.h: No such file or directory",
            "thrust/device_vector.h",
        ),
    ],
)
def test_a_missing_toolkit_header_is_named(
    read: Read, matrix: Matrix, line: str, header: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-toolkit-header-missing")
    assert error.severity is Severity.ERROR
    assert f"did not find {header}," in error.detail
    assert header in error.fix


@pytest.mark.parametrize(
    ("line", "lib"),
    [
        ("/usr/bin/ld: cannot find -lcudart", "cudart"),
        ("/usr/bin/ld: cannot find -lcublas: No such file or directory", "cublas"),
        ("/usr/bin/ld: cannot find -lcuda: No such file or directory", "cuda"),
        ("ld.lld: error: cannot find -lcudart_static", "cudart_static"),
        ("LINK : fatal error LNK1181: cannot open input file 'cudart.lib'", "cudart"),
    ],
)
def test_a_missing_toolkit_library_is_named(
    read: Read, matrix: Matrix, line: str, lib: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-toolkit-library-missing")
    assert f"found no {lib} library" in error.detail
    assert f"finds {lib}" in error.fix


def test_cmakes_find_cuda_toolkit_failure_carries_what_is_missing(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "  Could NOT find CUDAToolkit (missing: CUDAToolkit_INCLUDE_DIRECTORIES CUDA_CUDART) "
        '(found version "12.4.131")\n'
    )
    (error,) = named_lines(read, matrix, line, "cmake-cuda-toolkit-not-found")
    assert "FindCUDAToolkit" in error.detail
    assert "missing: CUDAToolkit_INCLUDE_DIRECTORIES CUDA_CUDART)" in error.detail
    assert "CUDAToolkit_ROOT" in error.fix


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("fatal error: foo.h: No such file or directory", "cuda-toolkit-header-missing"),
        ("fatal error: cudafoo.h: No such file or directory", "cuda-toolkit-header-missing"),
        ("we include cuda_runtime.h in every file", "cuda-toolkit-header-missing"),
        ("/usr/bin/ld: cannot find -lssl", "cuda-toolkit-library-missing"),
        ("/usr/bin/ld: cannot find -lcudnn", "cuda-toolkit-library-missing"),
        ("/usr/bin/ld: cannot find -lcuda_wrapper", "cuda-toolkit-library-missing"),
        (
            "Could NOT find OpenSSL (missing: OPENSSL_CRYPTO_LIBRARY)",
            "cmake-cuda-toolkit-not-found",
        ),
    ],
)
def test_near_misses_of_toolkit_build_errors_are_not_named(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    text = "Driver Version: 550.54.15\n" + line + "\n"
    assert code not in _named(read, matrix, text)


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        (
            "numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda "
            "install cudatoolkit`:\nlibnvvm.so: cannot open shared object file: No such file or "
            "directory",
            "numba-nvvm-missing",
            "numba-cuda[cu12]",
        ),
        (
            "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Possible CUDA "
            "driver libraries are found but error occurred during load:",
            "numba-driver-load-failed",
            "NUMBA_CUDA_DRIVER",
        ),
        (
            "numba.cuda.cudadrv.error.CudaDriverError: CUDA initialized before forking",
            "numba-cuda-forked",
            "spawn",
        ),
    ],
)
def test_numbas_cuda_errors_are_named(
    read: Read, matrix: Matrix, line: str, code: str, words: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", code)
    assert error.severity is Severity.ERROR
    assert words in error.fix


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("numba found libNVVM in /usr/local/cuda/nvvm/lib64", "numba-nvvm-missing"),
        ("CUDA driver libraries are found in /usr/lib64", "numba-driver-load-failed"),
        ("CUDA initialized before the workers start", "numba-cuda-forked"),
    ],
)
def test_near_misses_of_numbas_errors_are_not_named(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    text = "Driver Version: 550.54.15\n" + line + "\n"
    assert code not in _named(read, matrix, text)


def test_cmakes_undetected_cuda_architecture_is_named(read: Read, matrix: Matrix) -> None:
    text = (
        "-- The CUDA compiler identification is unknown\n"
        "CMake Error at /usr/share/cmake-3.28/Modules/CMakeDetermineCUDACompiler.cmake:270 "
        "(message):\n"
        "  Failed to detect a default CUDA architecture.\n"
    )
    (error,) = named_lines(read, matrix, text, "cmake-cuda-architecture-undetected")
    assert error.severity is Severity.ERROR
    assert "CMAKE_CUDA_ARCHITECTURES" in error.fix
    # a build that names its architectures is not this error
    near = "Driver Version: 550.54.15\n-- Detected CUDA architectures: 86\n"
    assert "cmake-cuda-architecture-undetected" not in _named(read, matrix, near)
