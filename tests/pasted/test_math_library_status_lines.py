"""The status names the CUDA math libraries print (cuFFT's cufftResult, cuSOLVER's
cusolverStatus_t, the cuBLAS statuses no narrower entry takes), NVRTC not finding its builtins
library, and ptxas refusing PTX of a newer ISA than it knows. Each is a family of lines: every
status of the enum, in any program's wording around it. Each test pastes lines of the kind the
rule is for (its own words, not a thread's) and a near miss that must not fire."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"


def test_every_cufft_status_in_any_wording(read: Read, matrix: Matrix) -> None:
    for line, status in (
        ("RuntimeError: cuFFT error: CUFFT_EXEC_FAILED\n", "CUFFT_EXEC_FAILED"),
        ("cupy_backends.cuda.libs.cufft.CuFFTError: CUFFT_SETUP_FAILED\n", "CUFFT_SETUP_FAILED"),
        ("cufftExecC2C failed with CUFFT_INTERNAL_ERROR at fft.cu:88\n", "CUFFT_INTERNAL_ERROR"),
    ):
        (found,) = error_lines(findings_of(read, matrix, line), "cufft-status")
        assert found.severity is Severity.ERROR
        assert status in found.detail
        assert "CUDA 11.8" in found.fix
    # A plan call names the transform type and a success status: neither is a failure.
    near = "cufftPlanMany(&plan, 2, dims, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, 8) = CUFFT_SUCCESS\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cufft-status")


def test_every_cusolver_status_in_any_wording(read: Read, matrix: Matrix) -> None:
    line = (
        "torch._C._LinAlgError: cusolver error: CUSOLVER_STATUS_NOT_INITIALIZED, when calling "
        "`cusolverDnCreate(handle)`\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "cusolver-status")
    assert found.severity is Severity.ERROR
    assert "CUSOLVER_STATUS_NOT_INITIALIZED" in found.detail
    assert "NaN" in found.fix
    other = "CuSolverError: CUSOLVER_STATUS_ZERO_PIVOT in getrf\n"
    (found,) = error_lines(findings_of(read, matrix, other), "cusolver-status")
    assert "CUSOLVER_STATUS_ZERO_PIVOT" in found.detail
    near = "cusolverDnSgetrf returned CUSOLVER_STATUS_SUCCESS\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cusolver-status")


def test_cublas_statuses_without_their_own_entry(read: Read, matrix: Matrix) -> None:
    line = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
        "`cublasGemmStridedBatchedEx(handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda)`\n"
    )
    findings = findings_of(read, matrix, line)
    (found,) = error_lines(findings, "cublas-status")
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in found.detail
    # Named by cuBLAS's own status, no longer by the CUDA runtime's error codes.
    assert not error_lines(findings, "cuda-error")
    # A status with its own entry keeps it.
    failed = "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm`\n"
    findings = findings_of(read, matrix, failed)
    assert error_lines(findings, "cublas-execution-failed")
    assert not error_lines(findings, "cublas-status")
    near = "cublasCreate returned CUBLAS_STATUS_SUCCESS\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cublas-status")


def test_nvrtc_without_its_builtins_library(read: Read, matrix: Matrix) -> None:
    line = (
        "RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.12.4.\n"
        "  Make sure that libnvrtc-builtins.so.12.4 is installed correctly.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "nvrtc-builtins-missing")
    assert found.severity is Severity.ERROR
    assert "libnvrtc-builtins.so.12.4 when" in found.detail
    win = "nvrtc: error: failed to open nvrtc-builtins64_124.dll.\n"
    (found,) = error_lines(findings_of(read, matrix, win), "nvrtc-builtins-missing")
    assert "nvrtc-builtins64_124.dll" in found.detail
    # The library found and opened is no fault.
    near = "I0101 loader.cc:44] Successfully opened libnvrtc-builtins.so.12.4\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "nvrtc-builtins-missing")


def test_ptxas_older_than_the_ptx_it_is_given(read: Read, matrix: Matrix) -> None:
    line = (
        "ptxas /tmp/kernel_3.ptx, line 5; fatal   : Unsupported .version 8.7; "
        "current version is '8.4'\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "ptxas-unsupported-ptx-version")
    assert found.severity is Severity.ERROR
    assert "up to 8.4" in found.detail
    assert "PTX ISA 8.7" in found.fix
    # ptxas's closing line alone says nothing about versions.
    near = "ptxas fatal   : Ptx assembly aborted due to errors\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "ptxas-unsupported-ptx-version")


def test_every_curand_status_in_any_wording(read: Read, matrix: Matrix) -> None:
    check = (
        "F0301 09:00:01.000001  4242 rng.cu:51] Check failed: status == CURAND_STATUS_SUCCESS "
        "(202 vs. 0)  CURAND_STATUS_ALLOCATION_FAILED\n"
    )
    (found,) = error_lines(findings_of(read, matrix, check), "curand-status")
    assert found.severity is Severity.ERROR
    assert "CURAND_STATUS_ALLOCATION_FAILED" in found.detail
    other = "RuntimeError: curandCreateGenerator failed: CURAND_STATUS_ARCH_MISMATCH\n"
    (found,) = error_lines(findings_of(read, matrix, other), "curand-status")
    assert "CURAND_STATUS_ARCH_MISMATCH" in found.detail
    # A success status alone, and a generator type, are no failures.
    near = "curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) -> CURAND_STATUS_SUCCESS\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "curand-status")


def test_every_nvrtc_result_in_any_wording(read: Read, matrix: Matrix) -> None:
    line = "cupy.cuda.nvrtc.NVRTCError: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7)\n"
    (found,) = error_lines(findings_of(read, matrix, line), "nvrtc-status")
    assert found.severity is Severity.ERROR
    assert "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE" in found.detail
    assert "builtins library" in found.fix
    other = "NvrtcError: Failed to call nvrtcCreateProgram: NVRTC_ERROR_OUT_OF_MEMORY\n"
    (found,) = error_lines(findings_of(read, matrix, other), "nvrtc-status")
    assert "NVRTC_ERROR_OUT_OF_MEMORY" in found.detail
    # The success code, and a program's own constant that merely starts alike, are no failures.
    near = "nvrtcCompileProgram returned NVRTC_SUCCESS; MY_NVRTC_ERRORS=0\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "nvrtc-status")


def test_torch_finding_no_cudnn_algorithm_that_runs(read: Read, matrix: Matrix) -> None:
    for line in (
        "RuntimeError: FIND was unable to find an engine to execute this computation\n",
        "RuntimeError: Unable to find an engine to execute this computation\n",
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution\n",
    ):
        (found,) = error_lines(findings_of(read, matrix, line), "cudnn-no-algorithm")
        assert found.severity is Severity.ERROR
        assert "free GPU memory" in found.fix
    # An algorithm found, and another program's engine lookup, are no failures.
    near = (
        "cudnn benchmark: found a valid cuDNN algorithm to run convolution in 3 passes\n"
        "render: unable to find an engine config file, using defaults\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + near), "cudnn-no-algorithm")


def test_cusparse_failures_by_status_name_and_by_torch_words(read: Read, matrix: Matrix) -> None:
    torch_form = (
        "RuntimeError: CUDA error: insufficient resources when calling "
        "`cusparseSpGEMM_compute(handle, opA, opB, &alpha, matA, matB, &beta, matC)`\n"
    )
    findings = findings_of(read, matrix, torch_form)
    (found,) = error_lines(findings, "cusparse-status")
    assert found.severity is Severity.ERROR
    assert "SpGEMM" in found.detail
    # cuSPARSE's words, not the CUDA runtime's error codes.
    assert not error_lines(findings, "cuda-error")
    named = "cupyx CuSparseError: CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED\n"
    assert error_lines(findings_of(read, matrix, named), "cusparse-status")
    near = "cusparseCreate -> CUSPARSE_STATUS_SUCCESS; 3.1 ms when calling cusparseSpMM\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cusparse-status")


def test_a_library_copy_without_the_symbol_version_asked_for(read: Read, matrix: Matrix) -> None:
    line = (
        "ImportError: /opt/old/lib64/libcusparse.so.12: version `libcusparse.so.12' not found "
        "(required by /opt/env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "library-version-node-missing")
    assert found.severity is Severity.ERROR
    assert "/opt/old/lib64/libcusparse.so.12" in found.detail
    assert "libtorch_cuda.so" in found.fix
    # The C++ runtime's versions keep their own entry.
    cxx = (
        "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found "
        "(required by /opt/env/lib/python3.12/site-packages/torch/lib/libtorch_python.so)\n"
    )
    findings = findings_of(read, matrix, cxx)
    assert error_lines(findings, "libstdcxx-too-old")
    assert not error_lines(findings, "library-version-node-missing")
    # The loader's harmless note about a library without version information is no failure.
    near = (
        "/bin/bash: /opt/env/lib/libtinfo.so.6: no version information available "
        "(required by /bin/bash)\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + near), "library-version-node-missing")


def test_triton_passing_on_a_cuda_driver_error(read: Read, matrix: Matrix) -> None:
    line = "RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n"
    (found,) = error_lines(findings_of(read, matrix, line), "triton-cuda-error")
    assert found.severity is Severity.ERROR
    assert "cudaErrorInvalidKernelImage" in found.detail
    assert "driver" in found.fix
    other = "RuntimeError: Triton Error [CUDA]: out of memory\n"
    (found,) = error_lines(findings_of(read, matrix, other), "triton-cuda-error")
    assert "out of memory" in found.detail
    # Triton's own compile messages without a driver error are not this.
    near = "triton: compiled kernel _fwd_kernel for [CUDA] sm_80 in 1.2 s\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "triton-cuda-error")


def test_an_extension_built_for_another_torch(read: Read, matrix: Matrix) -> None:
    line = (
        '  File "/opt/env/lib/python3.8/site-packages/torch_scatter/__init__.py", line 16\n'
        "OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such file or directory\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "torch-extension-library-missing")
    assert found.severity is Severity.ERROR
    assert "libtorch_cuda_cpp.so" in found.detail
    # torch's own lazily loaded library, and an ldd line that found a torch library, are not this.
    near = (
        "OSError: libtorch_cuda_linalg.so: cannot open shared object file\n"
        "\tlibtorch_cuda.so => /opt/env/lib/python3.8/site-packages/torch/lib/libtorch_cuda.so\n"
    )
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "torch-extension-library-missing")


def test_memory_efficient_attention_without_a_kernel_for_the_gpu(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "    attn_output = torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
        "RuntimeError: cutlassF: no kernel found to launch!\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "mem-efficient-attention-no-kernel")
    assert found.severity is Severity.ERROR
    assert "float16" in found.fix
    near = "xformers: cutlassF kernel found for sm_80, launching\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "mem-efficient-attention-no-kernel")


def test_a_cuda_library_dll_the_cudnn_loader_cannot_locate(read: Read, matrix: Matrix) -> None:
    line = "Could not locate cublas64_12.dll. Please make sure it is in your library path!\n"
    (found,) = error_lines(findings_of(read, matrix, line), "cudnn-cublas-dll-missing")
    assert found.severity is Severity.ERROR
    assert "CUDA 12" in found.detail
    # cuDNN's own sub-libraries keep their entry.
    own = "Could not locate cudnn_cnn_infer64_8.dll. Please make sure it is in your library path!\n"
    findings = findings_of(read, matrix, own)
    assert error_lines(findings, "cudnn-sublibrary-missing")
    assert not error_lines(findings, "cudnn-cublas-dll-missing")
    near = "Located cublas64_12.dll in C:\\CUDA\\v12.4\\bin\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cudnn-cublas-dll-missing")


def test_flash_attention_backward_for_large_heads_on_a_consumer_gpu(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "RuntimeError: FlashAttention backward for head dim > 64 requires A100/A800 or H100/H800\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "flash-attn-backward-needs-sm80-sm90")
    assert found.severity is Severity.ERROR
    assert "2.5.5" in found.fix
    # flash-attn's README line about the limit is not a failure.
    near = "3. All head dimensions up to 256. Head dim 256 backward now works on consumer GPUs.\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "flash-attn-backward-needs-sm80-sm90")


def test_a_library_glibc_refuses_for_its_executable_stack(read: Read, matrix: Matrix) -> None:
    line = (
        "OSError: /opt/env/lib/python3.12/site-packages/ctranslate2.libs/libctranslate2.so.4: "
        "cannot enable executable stack as shared object requires: Invalid argument\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "library-execstack-refused")
    assert found.severity is Severity.ERROR
    assert "libctranslate2.so.4 is marked" in found.detail
    # readelf's listing of the flag is not the loader refusing anything.
    near = "  GNU_STACK      0x000000 0x0000000000000000 0x0000000000000000 0x000000 RWE 0x10\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "library-execstack-refused")
