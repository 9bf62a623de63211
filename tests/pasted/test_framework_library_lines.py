"""Framework and library lines people paste: bitsandbytes without a binary for its CUDA, JAX's
outdated-library and PJRT-version messages, Triton's LLVM not knowing the GPU, Paddle's
third-party library loader, TensorFlow's CPU notices, and a reporter saying the machine has no
NVIDIA GPU. Each test pastes a line of the kind the rule is for (its own words, not a thread's)
and checks the finding, its severity and the numbers it names, and a near miss that must not
fire."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"


def test_bitsandbytes_without_a_binary_for_the_torch_cuda(read: Read, matrix: Matrix) -> None:
    old = (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda121.so. "
        "Maybe you need to compile it from source?\n"
    )
    (found,) = error_lines(findings_of(read, matrix, old), "bitsandbytes-cuda-binary-missing")
    assert found.severity is Severity.ERROR
    assert "CUDA 121" in found.detail
    assert "libbitsandbytes_cuda121" in found.detail
    new = (
        "WARNING: Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/opt/env/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_cuda128.so')\n"
    )
    (found,) = error_lines(findings_of(read, matrix, new), "bitsandbytes-cuda-binary-missing")
    assert "CUDA 128" in found.fix
    # The line bitsandbytes prints when it did load its CUDA binary is no fault.
    ok = "CUDA SETUP: Loading binary /opt/env/bitsandbytes/libbitsandbytes_cuda121.so...\n"
    assert not error_lines(findings_of(read, matrix, HOST + ok), "bitsandbytes-cuda-binary-missing")


def test_jax_outdated_library_over_three_lines(read: Read, matrix: Matrix) -> None:
    text = (
        "CUDA backend failed to initialize: Unable to use CUDA because of the following issues "
        "with CUDA components:\n"
        "Outdated cuSPARSE installation found.\n"
        "Version JAX was built against: 12200\n"
        "Minimum supported: 12100\n"
        "Installed version: 12002\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-cuda-library-outdated")
    assert found.severity is Severity.ERROR
    assert "cuSPARSE 12100 or newer" in found.detail
    assert "cuSPARSE 12200" in found.detail
    # Another program's "installation found." line is not JAX's check.
    near = "Outdated Java installation found.\nPlease update it.\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-cuda-library-outdated")


def test_jax_plugin_of_another_release(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT "
        "plugin PJRT API version (0.67) and framework PJRT API version 0.61).\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-pjrt-api-mismatch")
    assert found.severity is Severity.ERROR
    assert "(PJRT API 0.67)" in found.detail
    assert "(PJRT API 0.61)" in found.detail
    # The version check that passed (an older but supported plugin) says something else.
    near = "Plugin PJRT API version 0.61 is older than the framework's 0.67, using compatibility\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-pjrt-api-mismatch")


def test_triton_llvm_that_does_not_know_the_gpu(read: Read, matrix: Matrix) -> None:
    text = "'sm_100a' is not a recognized processor for this target (ignoring processor)\n" * 3
    found = error_lines(findings_of(read, matrix, text), "triton-llvm-unknown-arch")
    assert found
    assert all(f.severity is Severity.ERROR for f in found)
    assert "sm_100" in found[0].detail
    assert "10.0" in found[0].detail
    # An AMD target name in the same LLVM message is not an NVIDIA architecture.
    near = "'gfx1201' is not a recognized processor for this target (ignoring processor)\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "triton-llvm-unknown-arch")


def test_paddle_third_party_library_not_loaded(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: (PreconditionNotMet) The third-party dynamic library (libcudnn.so) that "
        "Paddle depends on is not configured correctly. (error code is libcudnn.so: cannot "
        "open shared object file: No such file or directory)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "paddle-library-not-configured")
    assert found.severity is Severity.ERROR
    assert "libcudnn.so" in found.detail
    near = "W0801 dynamic_loader.cc:238] Note: [Recommend] copy cudnn into CUDA's directory.\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "paddle-library-not-configured")


def test_tensorflow_cpu_notices_are_read_and_harmless(read: Read, matrix: Matrix) -> None:
    text = (
        "2025-01-02 10:00:00.000001: I tensorflow/core/util/port.cc:153] oneDNN custom operations "
        "are on. You may see slightly different numerical results due to floating-point "
        "round-off errors from different computation orders.\n"
        "2025-01-02 10:00:01.000002: I tensorflow/core/platform/cpu_feature_guard.cc:210] This "
        "TensorFlow binary is optimized to use available CPU instructions in "
        "performance-critical operations.\n"
    )
    findings = findings_of(read, matrix, text)
    assert error_lines(findings, "tf-onednn-notice")
    assert error_lines(findings, "tf-cpu-features")
    assert warn_or_error(findings) == []
    # A TensorFlow line about the GPU next to them is still judged.
    gpu = text + (
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
        "shared object file\n"
    )
    assert warn_or_error(findings_of(read, matrix, gpu))


def test_a_machine_said_to_have_no_nvidia_gpu(read: Read, matrix: Matrix) -> None:
    line = (
        "I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your "
        "machine, GPU will not be used.\n"
    )
    said = "Running the CPU docker image of the tool:\n" + line
    (found,) = error_lines(findings_of(read, matrix, said), "tf-no-cuda-drivers")
    assert found.severity is Severity.INFO
    assert "without an NVIDIA GPU" in found.detail
    prose = "I don't have any NVIDIA hardware, and I see:\n" + line
    (found,) = error_lines(findings_of(read, matrix, prose), "tf-no-cuda-drivers")
    assert found.severity is Severity.INFO
    # Alone, or next to an NVIDIA GPU the report names, the line is the fault it says.
    (alone,) = error_lines(findings_of(read, matrix, line), "tf-no-cuda-drivers")
    assert alone.severity is Severity.ERROR
    gpu = "Running the CPU docker image on my RTX 3090 box:\nGPU 0: NVIDIA GeForce RTX 3090\n"
    gpu += line
    (with_gpu,) = error_lines(findings_of(read, matrix, gpu), "tf-no-cuda-drivers")
    assert with_gpu.severity is Severity.ERROR
    # "CPU" next to other words is no statement about the machine.
    near = "CPU usage is high and the job is slow\n" + line
    (near_found,) = error_lines(findings_of(read, matrix, HOST + near), "tf-no-cuda-drivers")
    assert near_found.severity is Severity.ERROR


def test_torch_loading_another_cudnn(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) "
        "but found runtime version (8, 9, 7). PyTorch already comes bundled with cuDNN.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "torch-cudnn-incompatible")
    assert found.severity is Severity.ERROR
    assert "cuDNN 9.1.0" in found.detail
    assert "cuDNN 8.9.7" in found.detail
    old = (
        "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7605 but linked "
        "against 7102\n"
    )
    (found,) = error_lines(findings_of(read, matrix, old), "torch-cudnn-mismatch-linked")
    assert "7605" in found.detail
    # torch saying which cuDNN it uses is no fault.
    near = "cuDNN version: 90100 (PyTorch was compiled against it)\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "torch-cudnn-incompatible")
    assert not error_lines(findings, "torch-cudnn-mismatch-linked")


def test_tensorflow_without_kernels_for_the_gpu_jit_compiles(read: Read, matrix: Matrix) -> None:
    text = (
        "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with "
        "CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be "
        "jit-compiled from PTX, which could take 30 minutes or longer.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "tf-ptx-jit")
    assert found.severity is Severity.WARN  # it runs, after a long start
    assert "compute capability 12.0" in found.detail
    near = "I gpu_device.cc:1886] Created device with compute capability 8.6\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "tf-ptx-jit")


def test_onnxruntime_with_cuda_path_that_does_not_load(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: D:\\a\\_work\\1\\s\\onnxruntime\\python\\onnxruntime_pybind_state.cc:857 "
        "onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt "
        "able to be loaded. Please install the correct version of CUDA andcuDNN\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "onnxruntime-cuda-path-not-loaded")
    assert found.severity is Severity.ERROR
    assert "PATH" in found.fix
    near = "CUDA_PATH is set to C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\n"
    assert not error_lines(
        findings_of(read, matrix, HOST + near), "onnxruntime-cuda-path-not-loaded"
    )


def test_ollama_cuda_runtime_start_failure_names_the_error(read: Read, matrix: Matrix) -> None:
    text = (
        'time=2024-05-01T10:00:00.000Z level=INFO source=gpu.go:340 msg="Unable to load cudart '
        "CUDA management library /tmp/ollama7/runners/cuda_v11/libcudart.so.11.0: cudart init "
        'failure: 100"\n'
    )
    (found,) = error_lines(findings_of(read, matrix, text), "ollama-cudart-init-failed")
    assert found.severity is Severity.ERROR
    assert "cudaErrorNoDevice (100)" in found.detail
    old = (
        'msg="Unable to load cudart library /usr/lib/ollama/libcudart.so.12.4.127: your nvidia '
        'driver is too old or missing.  If you have a CUDA GPU please upgrade to run ollama"\n'
    )
    (found,) = error_lines(findings_of(read, matrix, old), "ollama-driver-too-old")
    assert "cudaErrorInsufficientDriver" in found.detail
    near = 'msg="Discovered GPU libraries: [/tmp/ollama7/runners/cuda_v11/libcudart.so.11.0]"\n'
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "ollama-cudart-init-failed")
    assert not error_lines(findings, "ollama-driver-too-old")


def test_a_missing_cuda_library_in_an_exception_repr(read: Read, matrix: Matrix) -> None:
    # Programs that catch the ImportError log it as Python writes its repr: ImportError('...').
    text = (
        "WARNING 05-02 10:00:00 _custom_ops.py:15] Failed to import from vllm._C with "
        "ImportError('libcublas.so.12: cannot open shared object file: No such file or "
        "directory')\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "cuda-library-missing")
    assert found.severity is Severity.ERROR
    assert "CUDA 12's libcublas" in found.detail
    near = "ImportError('libfoo.so.1: cannot open shared object file')\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cuda-library-missing")


def _collect_env(platform: str, driver: str) -> str:
    return (
        "PyTorch version: 2.4.0+cu121\n"
        "Is debug build: False\n"
        "CUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.4 LTS (x86_64)\n"
        f"Python platform: {platform}\n"
        "Is CUDA available: True\n"
        "CUDA runtime version: 12.4.131\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3080\n"
        f"Nvidia driver version: {driver}\n"
        "cuDNN version: Could not collect\n"
    )


def test_a_windows_driver_under_wsl_is_not_judged_by_linux_minimums(
    read: Read, matrix: Matrix
) -> None:
    wsl = _collect_env("Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35", "546.33")
    findings = findings_of(read, matrix, wsl)
    (fw,) = [f for f in findings if f.code == "framework-driver-cuda"]
    assert fw.severity is Severity.UNKNOWN  # not "too old": 546 is a Windows R545 driver
    assert "Windows driver" in fw.detail
    (nvcc,) = [f for f in findings if f.code == "nvcc-driver-cuda"]
    assert nvcc.severity is Severity.INFO
    # The same driver number on Linux is judged by the Linux minimums, and a Linux driver
    # older than CUDA 12.1's floor is still too old.
    linux = _collect_env("Linux-6.5.0-35-generic-x86_64-with-glibc2.35", "515.105.01")
    (old,) = [f for f in findings_of(read, matrix, linux) if f.code == "framework-driver-cuda"]
    assert old.severity is Severity.ERROR


def test_xla_without_libdevice(read: Read, matrix: Matrix) -> None:
    text = (
        "W0000 00:00:1739677334.593337    3089 gpu_backend_lib.cc:579] Can't find libdevice "
        "directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime "
        "failures, if the program we try to run uses routines from libdevice.\n"
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not found at "
        "./libdevice.10.bc\n"
    )
    found = error_lines(findings_of(read, matrix, text), "xla-libdevice-not-found")
    assert found
    assert all(f.severity is Severity.ERROR for f in found)
    assert "--xla_gpu_cuda_data_dir" in found[0].fix
    near = "I0000 nvptx_compiler.cc:120] Found libdevice dir /usr/local/cuda-12.4/nvvm/libdevice\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xla-libdevice-not-found")


def test_deepspeed_without_a_cuda_toolkit(read: Read, matrix: Matrix) -> None:
    text = (
        '    raise MissingCUDAException("CUDA_HOME does not exist, unable to compile CUDA op(s)")\n'
        "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, "
        "unable to compile CUDA op(s)\n"
    )
    found = error_lines(findings_of(read, matrix, text), "deepspeed-cuda-home-missing")
    assert found
    assert "CUDA_HOME" in found[0].fix
    near = "CUDA_HOME=/usr/local/cuda-12.4 exists\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "deepspeed-cuda-home-missing")


def test_vllm_quantization_above_the_gpu(read: Read, matrix: Matrix) -> None:
    text = (
        "ValueError: The quantization method modelopt_fp4 is not supported for the current GPU. "
        "Minimum capability: 100. Current capability: 89.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "vllm-quantization-capability")
    assert found.severity is Severity.ERROR
    assert "modelopt_fp4" in found.detail
    assert "compute capability 8.9" in found.detail
    scheme = (
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min "
        "capability: 80. ', 'Current capability: 75.')\n"
    )
    (found,) = error_lines(findings_of(read, matrix, scheme), "vllm-quantization-scheme-capability")
    assert "compute capability 7.5" in found.detail
    near = "INFO 05-01 10:00:00 awq_marlin.py:101] The model is convertible to awq_marlin\n"
    findings = findings_of(read, matrix, HOST + near)
    assert not error_lines(findings, "vllm-quantization-capability")
    assert not error_lines(findings, "vllm-quantization-scheme-capability")


def test_torch_compile_on_a_gpu_older_than_triton_supports(read: Read, matrix: Matrix) -> None:
    text = (
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        "RuntimeError: Found Tesla P40 which is too old to be supported by the triton GPU "
        "compiler, which is used as the backend. Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.1\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "triton-gpu-too-old")
    assert found.severity is Severity.ERROR
    assert "Tesla P40" in found.detail
    assert "TORCHDYNAMO_DISABLE=1" in found.fix
    near = "W0501 Triton compiler found device Tesla V100 with CUDA capability 7.0\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "triton-gpu-too-old")


def test_a_repeated_error_line_is_judged_once_by_its_own_signature(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( "
        "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n"
    )
    findings = findings_of(read, matrix, line + "  File 'train.py', line 3\n" + line)
    assert len(error_lines(findings, "cublas-invalid-value")) == 1
    # The second copy is not left to the catch-all CUDA error entry.
    assert not error_lines(findings, "cuda-error")
    # A different CUDA error further down is still its own finding.
    other = line + "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    assert error_lines(findings_of(read, matrix, other), "cuda-error")


def test_jax_and_jaxlib_of_different_releases(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: jaxlib version 0.4.31 is newer than and incompatible with jax version "
        "0.4.20. Please update your jax and/or jaxlib packages.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-jaxlib-mismatch")
    assert found.severity is Severity.ERROR
    assert "jax 0.4.20 refuses jaxlib 0.4.31" in found.detail
    near = "jax: 0.4.31\njaxlib: 0.4.31\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-jaxlib-mismatch")


def test_a_math_library_soname_is_not_read_as_a_cuda_major(read: Read, matrix: Matrix) -> None:
    # cuFFT, cuRAND and cuSOLVER sonames carry their own major: libcurand.so.10 is in the
    # CUDA 11 and CUDA 12 wheels alike, so the line must not say "CUDA 10".
    text = "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"
    (found,) = error_lines(findings_of(read, matrix, HOST + text), "cuda-math-library-missing")
    assert "libcurand.so.10" in found.detail
    assert "CUDA 10's" not in found.detail
    assert not error_lines(findings_of(read, matrix, HOST + text), "cuda-library-missing")
    # Near miss: cudart's soname is the CUDA major, and stays with cuda-library-missing.
    cudart = "OSError: libcudart.so.11.0: cannot open shared object file: No such file\n"
    assert not error_lines(findings_of(read, matrix, HOST + cudart), "cuda-math-library-missing")
    (same,) = error_lines(findings_of(read, matrix, HOST + cudart), "cuda-library-missing")
    assert "CUDA 11's libcudart" in same.detail
