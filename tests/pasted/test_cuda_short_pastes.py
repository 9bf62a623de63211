"""Short CUDA-layer pastes, one to four lines: a loader's error for a CUDA library by its
unversioned name (the development link), the bare "CUDA out of memory", the CUDA samples'
deviceQuery verdicts, the CUDA compiler tools' fatal lines, torch.utils.cpp_extension's own
messages, old torch's THCudaCheck, a CUDA call that "returned N" and CMake's empty
CMAKE_CUDA_ARCHITECTURES. Each in its program's own format, each with a near miss."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.cuda_errors import describe
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, named_lines, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


def _named(read: Read, matrix: Matrix, text: str) -> dict[str, Severity]:
    return {
        f.subject: f.severity
        for f in findings_of(read, matrix, text)
        if f.code == "report-error" and f.subject
    }


@pytest.mark.parametrize(
    ("line", "lib"),
    [
        (
            "error while loading shared libraries: libcublas.so: cannot open shared object "
            "file: No such file or directory",
            "cublas",
        ),
        ("ImportError: libcudart.so: cannot open shared object file: No such file", "cudart"),
        ("OSError: libcufft.so: cannot open shared object file: No such file", "cufft"),
        ("OSError: libcudnn_ops_infer.so: cannot open shared object file", "cudnn_ops_infer"),
        ("OSError: libnccl.so: cannot open shared object file: No such file", "nccl"),
        ("OSError: libnvToolsExt.so: cannot open shared object file", "nvToolsExt"),
    ],
)
def test_a_cuda_library_by_its_unversioned_name_is_the_development_link(
    read: Read, matrix: Matrix, line: str, lib: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-library-dev-name-missing")
    assert error.severity is Severity.ERROR
    assert f"lib{lib}.so by its unversioned name" in error.detail
    assert f"lib{lib}.so.<major>" in error.detail


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the versioned sonames keep their own entries, the driver's libraries theirs
        ("ImportError: libcudart.so.12: cannot open shared object file", "cuda-library-missing"),
        (
            "error while loading shared libraries: libcurand.so.10: cannot open shared object "
            "file: No such file or directory",
            "cuda-math-library-missing",
        ),
        ("OSError: libcudnn.so.9: cannot open shared object file", "cudnn-library-missing"),
        ("OSError: libcuda.so: cannot open shared object file", "libcuda-not-found"),
        (
            "error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object "
            "file: No such file or directory",
            "nvml-library-missing",
        ),
        ("OSError: libnvidia-ml.so.1: cannot open shared object file", "nvml-library-missing"),
    ],
)
def test_versioned_and_driver_libraries_keep_their_entries(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    named = _named(read, matrix, line + "\n")
    assert named == {code: Severity.ERROR}


def test_library_listings_are_not_loader_errors(read: Read, matrix: Matrix) -> None:
    text = (
        "\tlibcudart.so (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so\n"
        "\tlibnvidia-ml.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
        "\tlibcublas.so.12 => /usr/local/cuda/lib64/libcublas.so.12 (0x00007f0000100000)\n"
    )
    assert not [
        f for f in findings_of(read, matrix, text) if f.code == "report-error" and f.subject
    ]
    assert not warn_or_error(findings_of(read, matrix, text))


@pytest.mark.parametrize(
    "line",
    [
        "CUDA out of memory",
        "RuntimeError: CUDA out of memory.",
        "torch.cuda.OutOfMemoryError: CUDA out of memory.",
    ],
)
def test_the_bare_out_of_memory_message_is_named(read: Read, matrix: Matrix, line: str) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-out-of-memory-unsized")
    assert error.severity is Severity.ERROR
    assert "nvidia-smi" in error.fix


def test_out_of_memory_in_prose_or_with_its_size_is_not_the_bare_entry(
    read: Read, matrix: Matrix
) -> None:
    for prose in ("CUDA out of memory?\n", "I keep getting CUDA out of memory when I train\n"):
        assert not named_lines(
            read, matrix, "Driver Version: 550.54.15\n" + prose, "cuda-out-of-memory-unsized"
        )
    full = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total)\n"
    assert _named(read, matrix, full) == {"cuda-out-of-memory": Severity.ERROR}


@pytest.mark.parametrize(
    "line",
    ["There are no available device(s) that support CUDA", "Detected 0 CUDA Capable device(s)"],
)
def test_device_query_with_no_device_is_an_error(read: Read, matrix: Matrix, line: str) -> None:
    text = " CUDA Device Query (Runtime API) version (CUDART static linking)\n\n" + line + "\n"
    (error,) = named_lines(read, matrix, text, "cuda-sample-no-device")
    assert error.severity is Severity.ERROR
    assert "CUDA_VISIBLE_DEVICES" in error.detail


def test_device_query_failure_names_the_cause_and_the_rest_is_info(
    read: Read, matrix: Matrix
) -> None:
    text = "cudaGetDeviceCount returned 100\n-> no CUDA-capable device is detected\nResult = FAIL\n"
    named = _named(read, matrix, text)
    assert named == {
        "no-cuda-device": Severity.ERROR,
        "cuda-call-failed": Severity.INFO,  # explained by the message on the next line
        "cuda-sample-failed": Severity.INFO,  # the verdict beside its cause
    }
    # alone, the verdict is the only thing known to have failed
    (alone,) = named_lines(read, matrix, "Result = FAIL\n", "cuda-sample-failed")
    assert alone.severity is Severity.ERROR
    # an unexplained call keeps its own meaning from the number
    (call,) = named_lines(
        read, matrix, "cudaGetDeviceCount returned 999\n-> unknown error\n", "cuda-call-failed"
    )
    assert call.severity is Severity.ERROR
    assert "cudaErrorUnknown (999)" in call.detail


@pytest.mark.parametrize(
    "text",
    [
        "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = "
        "12.4, NumDevs = 1\nResult = PASS\n",
        'Detected 2 CUDA Capable device(s)\n\nDevice 0: "NVIDIA A100-SXM4-80GB"\n',
        "cudaMalloc returned 0 (no error)\n",
    ],
)
def test_device_query_success_is_benign(read: Read, matrix: Matrix, text: str) -> None:
    try:
        findings = findings_of(read, matrix, text)
    except Exception:  # "no report recognised" is benign too
        assert no_fact_read(read, text)
        return
    assert not warn_or_error(findings)


@pytest.mark.parametrize(
    "line",
    [
        "nvcc fatal   : Could not open input file 'kernel.cu'",
        "nvcc fatal   : Unknown option '-fopenmp'",
        "ptxas fatal   : Unresolved extern function '_Z3foov'",
        "nvlink error   : Undefined reference to '_Z3barv' in 'main.o'",
    ],
)
def test_cuda_compiler_tools_fatal_lines_are_read_as_unknown_errors(
    read: Read, matrix: Matrix, line: str
) -> None:
    findings = findings_of(read, matrix, line + "\n")
    (unknown,) = [f for f in findings if f.code == "report-unknown-line"]
    assert line.split(":", maxsplit=1)[0].strip() in unknown.title
    assert not warn_or_error(findings)


@pytest.mark.parametrize(
    ("line", "code", "said"),
    [
        ("nvcc fatal   : Cannot find compiler 'cl.exe' in PATH", "nvcc-cl-not-found", "cl.exe"),
        (
            "nvcc fatal   : The version ('40000') of the host compiler ('Microsoft Visual C++') "
            "is not supported",
            "nvcc-host-compiler-version-refused",
            "Microsoft Visual C++, version 40000",
        ),
        ("nvcc fatal   : Host compiler targets unsupported OS.", "nvcc-host-compiler-32bit", "x64"),
    ],
)
def test_nvcc_host_compiler_lines_on_windows_are_named(
    read: Read, matrix: Matrix, line: str, code: str, said: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", code)
    assert error.severity is Severity.ERROR
    assert said in error.detail + error.fix


def test_prose_about_nvcc_is_no_error_line(read: Read) -> None:
    assert no_fact_read(read, "the nvcc fatal error went away after I fixed PATH\n")


def test_cpp_extension_without_a_cuda_runtime_is_a_warning(read: Read, matrix: Matrix) -> None:
    line = (
        "/opt/conda/lib/python3.10/site-packages/torch/utils/cpp_extension.py:25: UserWarning: "
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda-12.1'\n"
    )
    (warning,) = named_lines(read, matrix, line, "torch-extension-no-cuda-runtime")
    assert warning.severity is Severity.WARN
    assert "/usr/local/cuda-12.1" in warning.detail
    assert "docker build" in warning.detail
    rocm = "Driver Version: 550.54.15\nNo ROCm runtime is found, using ROCM_HOME='/opt/rocm'\n"
    assert not named_lines(read, matrix, rocm, "torch-extension-no-cuda-runtime")


def test_cpp_extension_version_checks(read: Read, matrix: Matrix) -> None:
    minor = (
        "UserWarning: The detected CUDA version (12.4) has a minor version mismatch with the "
        "version that was used to compile PyTorch (12.1). Most likely this shouldn't be a "
        "problem.\n"
    )
    (info,) = named_lines(read, matrix, minor, "torch-extension-cuda-minor-mismatch")
    assert info.severity is Severity.INFO
    assert "CUDA 12.4" in info.detail
    assert "CUDA 12.1" in info.detail
    major = (
        "RuntimeError: The detected CUDA version (12.1) mismatches the version that was used "
        "to compile PyTorch (11.8). Please make sure to use the same CUDA versions.\n"
    )
    assert _named(read, matrix, major) == {"nvcc-framework-cuda": Severity.ERROR}
    compiler = (
        "RuntimeError: The current installed version of g++ (13.2.0) is greater than the "
        "maximum required version by CUDA 11.7. Please make sure to use an adequate version of "
        "g++ (>=6.0.0, <12.0).\n"
    )
    (error,) = named_lines(read, matrix, compiler, "torch-extension-compiler-version")
    assert error.severity is Severity.ERROR
    assert "g++ 13.2.0 is greater" in error.detail
    assert "CUDA 11.7" in error.detail
    bounds = "There are no g++ version bounds defined for CUDA version 12.1\n"
    assert no_fact_read(read, bounds) or not warn_or_error(findings_of(read, matrix, bounds))


def test_cpp_extension_build_environment_lines(read: Read, matrix: Matrix) -> None:
    ninja = (
        "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not "
        "find ninja.. Falling back to using the slow distutils backend.\n"
    )
    (slow,) = named_lines(read, matrix, ninja, "torch-extension-no-ninja")
    assert slow.severity is Severity.WARN
    no_cuda = (
        "RuntimeError: CUDA was not found on the system, please set the CUDA_HOME or the "
        "CUDA_PATHenvironment variable or add NVCC to your system PATH. The extension "
        "compilation will fail.\n"
    )
    assert _named(read, matrix, no_cuda) == {"cuda-home-not-set": Severity.ERROR}
    no_nvcc = (
        "FileNotFoundError: nvcc not found at '/usr/local/cuda/bin/nvcc'. Ensure CUDA path "
        "'/usr/local/cuda' is correct.\n"
    )
    assert _named(read, matrix, no_nvcc) == {"cuda-compiler-not-found": Severity.ERROR}


def test_thcudacheck_is_a_cuda_error_read_by_its_text(read: Read, matrix: Matrix) -> None:
    line = (
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=30 : "
        "unknown error\n"
    )
    (error,) = named_lines(read, matrix, line, "cuda-error")
    assert error.severity is Severity.ERROR
    # 30 was cudaErrorUnknown in the CUDA torch 1.x was built with; the catalogue's 30 is not
    assert error.detail.startswith("cudaErrorUnknown (999)")
    oom = describe("THCudaCheck FAIL file=THCStorage.cu line=58 error=2 : out of memory")
    assert oom is not None
    assert oom.name == "cudaErrorMemoryAllocation"
    # a text the catalogue does not know is not looked up by the old number
    assert (
        describe("THCudaCheck FAIL file=a.cu line=1 error=30 : a message no release prints") is None
    )


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("cuInit(0) returned 100", "CUDA_ERROR_NO_DEVICE"),
        ("cuDeviceGet returned 101", "CUDA_ERROR_INVALID_DEVICE"),
        ("cudaMalloc returned 2", "cudaErrorMemoryAllocation"),
    ],
)
def test_a_cuda_call_that_returned_a_code_is_named(
    read: Read, matrix: Matrix, line: str, name: str
) -> None:
    (error,) = named_lines(read, matrix, line + "\n", "cuda-call-failed")
    assert error.severity is Severity.ERROR
    assert error.detail.startswith(f"a CUDA call failed with {name}")


def test_a_call_that_returned_success_is_not_named(read: Read, matrix: Matrix) -> None:
    for line in ("cuInit(0) returned 0\n", "the cudaMalloc call returned 2 buffers\n"):
        assert not named_lines(
            read, matrix, "Driver Version: 550.54.15\n" + line, "cuda-call-failed"
        )


def test_cmake_empty_cuda_architectures(read: Read, matrix: Matrix) -> None:
    text = (
        "CMake Error at /usr/share/cmake-3.31/Modules/Internal/CMakeCUDAArchitecturesValidate"
        ".cmake:7 (message):\n  CMAKE_CUDA_ARCHITECTURES must be non-empty if set.\n"
    )
    (error,) = named_lines(read, matrix, text, "cmake-cuda-architectures-empty")
    assert error.severity is Severity.ERROR
    assert "-DCMAKE_CUDA_ARCHITECTURES=86" in error.fix
    configured = (
        "Driver Version: 550.54.15\n-- CMAKE_CUDA_ARCHITECTURES: 86\n"
        "-- Found CUDAToolkit: /usr/local/cuda/include\n"
    )
    assert not named_lines(read, matrix, configured, "cmake-cuda-architectures-empty")


@pytest.mark.parametrize(
    ("line", "code", "said"),
    [
        (
            "!! WARNING !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
            "Your compiler (c++) is not compatible with the compiler Pytorch wasbuilt with for "
            "this platform, which is g++ on linux. Please",
            "torch-extension-compiler-not-torchs",
            "compiler c++ is g++",
        ),
        (
            "Your compiler (g++ 4.8.5) may be ABI-incompatible with PyTorch!Please use a "
            "compiler that is ABI-compatible with GCC 5.0 and above.",
            "torch-extension-compiler-abi",
            "(g++ 4.8.5)",
        ),
    ],
)
def test_cpp_extension_compiler_warnings(
    read: Read, matrix: Matrix, line: str, code: str, said: str
) -> None:
    (warning,) = named_lines(read, matrix, line + "\n", code)
    assert warning.severity is Severity.WARN
    assert said in warning.detail
    # the compiler torch found is fine: its own build lines are no warning
    fine = "Driver Version: 550.54.15\nbuilding 'fused_adam' extension\n"
    assert not named_lines(read, matrix, fine, code)
