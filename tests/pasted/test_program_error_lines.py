"""Error and log lines that programs people run on GPUs print (TensorFlow, torch.compile, Triton,
vLLM, llama.cpp, onnxruntime, numba, CuPy, apex, JAX/XLA, cuBLAS, rocBLAS, the container toolkit,
the kubelet, the GPU Operator, the loader): each line, as posted in a public thread, is named by
its own signature with the numbers it states, and a near miss is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted import errors
from gpudoctor.pasted.draft import Draft

Read = Callable[[str], HostFacts]

# (code, a line as a thread posted it, words the rendered cause or fix must hold, a near miss)
CASES = [
    (
        "nccl-symbol-shadowed",
        "ImportError: /root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/"
        "libtorch_cuda.so: undefined symbol: ncclCommRegister",
        ("lacks ncclCommRegister", "LD_DEBUG=libs"),
        "ImportError: libtorch_cuda.so: undefined symbol: cudnnGetLibConfig",
    ),
    (
        "tf-gpu-below-minimum",
        "2020-07-07 15:35:48.520179: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1721] "
        "Ignoring visible gpu device (device: 0, name: GeForce GTX 670MX, pci bus id: "
        "0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum "
        "required Cuda capability is 3.5.",
        ("GeForce GTX 670MX", "capability 3.0 is below the 3.5", "listing 3.0"),
        "Ignoring visible gpu device (device: 0, name: GeForce GTX 670MX) with Cuda compute "
        "capability 3.0. The minimum required Cuda capability is unknown.",
    ),
    (
        "tf-ptx-jit",
        "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with "
        "CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be "
        "jit-compiled from PTX, which could take 30 minutes or longer.",
        ("compute capability 12.0", "CUDA_CACHE_MAXSIZE"),
        "TensorFlow was not built with CUDA kernel binaries compatible with compute capability.",
    ),
    (
        "triton-gpu-too-old",
        "RuntimeError: Found Tesla P100-SXM2-16GB which is too old to be supported by the triton "
        "GPU compiler, which is used as the backend. Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.0",
        ("Tesla P100-SXM2-16GB has 6.0", "TORCH_COMPILE_DISABLE=1"),
        "Found NVIDIA GeForce RTX 3090 which is supported by the triton GPU compiler",
    ),
    (
        "inductor-triton-missing",
        "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the "
        "package is not installed or it is too old.",
        ("`triton` package", "TORCH_COMPILE_DISABLE=1"),
        "Found a working triton installation (triton 3.1.0)",
    ),
    (
        "triton-shared-memory",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 65536, "
        "Hardware limit: 49152. Reducing block sizes or `num_stages` may help.",
        ("needs 65536 bytes", "limit of 49152 bytes"),
        "triton.runtime.errors.OutOfResources: out of resource: registers, Required: 300",
    ),
    (
        "onnxruntime-cpu-build",
        "onnxruntime_inference_collection.py:69: UserWarning: Specified provider "
        "'CUDAExecutionProvider' is not in available provider names.Available providers: "
        "'AzureExecutionProvider, CPUExecutionProvider'",
        ("without CUDAExecutionProvider", "only `onnxruntime-gpu`"),
        "Specified provider 'CPUExecutionProvider' is not in available provider names",
    ),
    (
        "onnxruntime-cuda-dll",
        "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed "
        'with error 126 "" when trying to load "E:\\x\\build\\examples\\Release\\'
        'onnxruntime_providers_cuda.dll"',
        ("load onnxruntime_providers_cuda.dll", "ERROR_MOD_NOT_FOUND"),
        'LoadLibrary failed with error 126 "" when trying to load "C:\\app\\other.dll"',
    ),
    (
        "numba-no-driver",
        "CudaSupportError: Error at driver init: CUDA driver library cannot be found.",
        ("no CUDA driver library", "NUMBA_CUDA_DRIVER"),
        "CudaSupportError: Error at driver init: CUDA driver library could not be loaded.",
    ),
    (
        "static-tls-block",
        "ImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static "
        "TLS block",
        ("export LD_PRELOAD=/usr/lib/aarch64-linux-gnu/libgomp.so.1", "glibc"),
        "OSError: cannot allocate memory",
    ),
    (
        "rocblas-no-tensile-for-gfx",
        "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/"
        "TensileLibrary.dat: No such file or directory for GPU arch : gfx1103",
        ("kernel library for gfx1103", "HSA_OVERRIDE_GFX_VERSION"),
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek",
    ),
    (
        "container-cli-privileges",
        "stderr: nvidia-container-cli: initialization error: privilege change failed: operation "
        "not permitted",
        ("change its privileges (operation not permitted)", "nvidia-ctk cdi generate"),
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1",
    ),
    (
        "kubelet-device-allocate",
        "32s  Warning  UnexpectedAdmissionError  pod/trm-train-arc2-4gpu-9lltn  Allocate failed "
        "due to requested number of devices unavailable for nvidia.com/gpu. Requested: 4, "
        "Available: 0, which is unexpected",
        ("only 0 healthy, unallocated nvidia.com/gpu devices for the 4", "kubectl describe node"),
        "Allocate failed due to no healthy devices present; cannot allocate unhealthy devices "
        "amd.com/gpu, which is unexpected",
    ),
    (
        "gpu-operator-kernel-packages",
        "Could not resolve Linux kernel version",
        ("kernel header/devel packages", "driver.repoConfig"),
        "Resolving Linux kernel version...",
    ),
    (
        "cudnn-zlibwapi",
        "Could not locate zlibwapi.dll. Please make sure it is in your library path!",
        ("zlibwapi.dll", "PATH"),
        "Could not locate cudnn64_8.dll",
    ),
    (
        "cuda-stub-library",
        "[2024-03-15 10:30:10] CUDA error: CUDA_ERROR_STUB_LIBRARY",
        ("stubs folder", "LD_LIBRARY_PATH"),
        "libcuda.so: stub library found in /usr/local/cuda/lib64/stubs at link time",
    ),
    (
        "vllm-kv-cache-too-small",
        "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
        "that can be stored in KV cache (93760). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.",
        ("holds 93760 tokens", "max length (131072)", "--max-model-len 93760"),
        "The model's max seq len (4096) fits in KV cache",
    ),
    (
        "vllm-kv-cache-needed",
        "ValueError: To serve at least one request with the model's max seq len (262144), "
        "(9.29 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(9.28 GiB). Based on the available memory, the estimated maximum model length is 260800.",
        ("(262144 tokens) needs 9.29 GiB", "has 9.28 GiB"),
        "KV cache is needed, which is larger than the available KV cache memory (unknown)",
    ),
    (
        "vllm-no-cache-memory",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine.",
        ("no memory left for the KV cache", "--gpu-memory-utilization"),
        "INFO: # GPU blocks: 1024, # CPU blocks: 512",
    ),
    (
        "ggml-cuda-out-of-memory",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144.00 MiB on device 4: "
        "cudaMalloc failed: out of memory",
        ("allocate 144.00 MiB on GPU 4", "-ngl"),
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144.00 MiB on device 4",
    ),
    (
        "wheel-not-for-platform",
        "ERROR: onnxruntime_gpu-1.17.0-cp38-cp38-linux_aarch64.whl is not a supported wheel on "
        "this platform.",
        ("refused onnxruntime_gpu-1.17.0-cp38-cp38-linux_aarch64.whl", "JetPack"),
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.0",
    ),
    (
        "cublas-not-initialized",
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
        "`cublasCreate(handle)`",
        ("could not create its handle", "LD_LIBRARY_PATH"),
        "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmEx`",
    ),
    (
        "cublas-execution-failed",
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling "
        "`cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F)`",
        ("failed to launch or run", "CUDA_LAUNCH_BLOCKING=1"),
        "CUBLAS_STATUS_SUCCESS",
    ),
    (
        "cublas-alloc-failed",
        "failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED",
        ("could not allocate GPU memory", "set_memory_growth"),
        "CUBLAS_STATUS_ARCH_MISMATCH",
    ),
    (
        "tf-oom",
        "ResourceExhaustedError: OOM when allocating tensor with shape[1,512,512,64] and type "
        "float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
        ("ran out of GPU memory", "set_memory_growth"),
        "Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to "
        "1073741824)requested by op Conv2D",
    ),
    (
        "xla-out-of-memory",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 2147483648 bytes.",
        ("allocating 2147483648 bytes", "XLA_PYTHON_CLIENT_MEM_FRACTION"),
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate a buffer",
    ),
    (
        "apex-cuda-mismatch",
        "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
        "match the version used to compile Pytorch binaries.  Pytorch binaries were compiled "
        "with Cuda 9.0.176.",
        ("built with (9.0.176)", "CUDA 9.0.176 toolkit"),
        "Compiling cuda extensions with nvcc: Cuda compilation tools, release 11.7",
    ),
    (
        "cupy-multiple-packages",
        "UserWarning: CuPy may not function correctly because multiple CuPy packages are "
        "installed: cupy-cuda12x, cupy-cuda13x",
        ("more than one CuPy package", "only the one"),
        "CuPy is installed: cupy-cuda12x",
    ),
    (
        "bitsandbytes-cuda-setup",
        "CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above to "
        "fix your environment!",
        ("could not load a binary of its own", "python -m bitsandbytes"),
        "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so",
    ),
    (
        "cudnn-sublibrary-missing",
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
        "libcudnn_ops.so}",
        ("sub-libraries", "site-packages/nvidia/cudnn/lib"),
        "I external/xla/xla/stream_executor/cuda/cuda_dnn.cc:529] Loaded cuDNN version 90100",
    ),
    (
        "torch-cudnn-incompatible",
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 10, 2) but "
        "found runtime version (9, 1, 0). PyTorch already comes bundled with cuDNN.",
        ("cuDNN 9.10.2", "loaded cuDNN 9.1.0", "LD_LIBRARY_PATH"),
        "cuDNN version: 90100",
    ),
    (
        "dcgm-profiling-unavailable",
        "2025/03/03 06:51:55 INFO Not collecting DCP metrics: This request is serviced by a module "
        "of DCGM that is not currently loaded",
        ("got 'This request is serviced by a module of DCGM", "dcgmi modules -l"),
        'level=fatal msg="Error watching fields: This request is serviced by a module of DCGM '
        'that is not currently loaded"',
    ),
    (
        "tensorrt-library-missing",
        "python3: error while loading shared libraries: libnvinfer.so.8: cannot open shared object "
        "file: No such file or directory",
        ("TensorRT 8's libnvinfer.so.8", "LD_LIBRARY_PATH"),
        "ImportError: libnvrtc.so.12: cannot open shared object file: No such file or directory",
    ),
    (
        "gpu-operator-toolkit-validation",
        'time="2021-10-07T15:16:34Z" level=info msg="Error: error validating toolkit '
        'installation: exec: \\"nvidia-smi\\": executable file not found in $PATH"',
        ("nvidia RuntimeClass", "CONTAINERD_CONFIG"),
        'time="2021-10-07T15:16:34Z" level=info msg="toolkit is not ready"',
    ),
    (
        "gpu-operator-driver-validation",
        "2024-10-24T09:25:48.178993123+08:00 chroot: failed to run command 'nvidia-smi': No such "
        "file or directory",
        ("/run/nvidia/driver", "driver.enabled=false"),
        "running command chroot with args [/run/nvidia/driver nvidia-smi]",
    ),
    (
        "image-wrong-architecture",
        "deepstack_trainer    | standard_init_linux.go:219: exec user process caused: exec format "
        "error",
        ("another CPU architecture", "uname -m"),
        "OSError: [Errno 8] Exec format error: './run.sh'",
    ),
    (
        "no-wheel-for-python",
        "ERROR: Could not find a version that satisfies the requirement tensorflow-cpu (from "
        "versions: none)",
        ("no release of tensorflow-cpu", "python -V"),
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.13.0 (from "
        "versions: 2.20.0rc0, 2.20.0)",
    ),
    (
        "nvrm-fallen-off-bus",
        "[Thu Jan 11 10:01:02 2024] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.",
        ("reach the GPU at 0000:41:00.0", "Xid 79", "AER"),
        "NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x26:0xffff:1601)",
    ),
    (
        "nvcc-host-compiler-unsupported",
        "/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_config.h:151:2: error: -- "
        "unsupported clang version! clang version must be less than 16 and greater than 3.2 . The "
        "nvcc flag '-allow-unsupported-compiler' can be used to override this version check",
        ("clang version must be less than 16 and greater than 3.2", "-ccbin"),
        "nvcc warning : The 'compute_35', 'compute_37' architectures are deprecated",
    ),
    (
        "nvcc-host-compiler-unsupported",
        "D:\\cuda\\include\\crt/host_config.h(160): fatal error C1189: #error:  -- unsupported "
        "Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are "
        "supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this",
        ("Microsoft Visual Studio", "between 2017 and 2022"),
        "-- The CXX compiler identification is MSVC 19.38.33133.0",
    ),
    (
        "cuda-compiler-not-found",
        "CMake Error at CMakeLists.txt:3 (project):\n  No CMAKE_CUDA_COMPILER could be found.",
        ("no CUDA compiler (nvcc)", "CUDACXX"),
        "-- The CUDA compiler identification is NVIDIA 12.4.131",
    ),
    (
        "torchvision-ops-missing",
        "RuntimeError: operator torchvision::nms does not exist",
        ("not a release pair", "same index"),
        "torchvision.ops.nms(boxes, scores, 0.5) returned 12 boxes",
    ),
    (
        "torch-extension-abi",
        "ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-"
        "gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_string"
        "IcSt11char_traitsIcESaIcEEE",
        ("_ZN3c105ErrorC2", "cxx11abi"),
        "ImportError: libtorch_cuda.so: undefined symbol: cudnnGetLibConfig",
    ),
    (
        "wsl-no-gpu-adapter",
        "nvidia-container-cli: initialization error: WSL environment detected but no adapters "
        "were found: unknown.",
        ("WSL exposes no GPU adapter", "wsl --shutdown"),
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown",
    ),
    (
        "nccl-shm-segment",
        "node1:123:456 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend "
        "/dev/shm/nccl-AbCdEf to 9637892 bytes",
        ("/dev/shm", "--shm-size"),
        "node1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
    ),
    (
        "k8s-insufficient-mig",
        "  Warning  FailedScheduling  2m  default-scheduler  0/4 nodes are available: 4 "
        "Insufficient nvidia.com/mig-3g.40gb. preemption: 0/4 nodes are available.",
        ("nvidia.com/mig-3g.40gb", "mixed MIG strategy", "nvidia-smi mig -lgip"),
        "0/4 nodes are available: 4 Insufficient cpu.",
    ),
    (
        "mig-manager-failed",
        "                    nvidia.com/mig.config.state=failed",
        ("MIG Manager", "nvidia-mig-manager"),
        "                    nvidia.com/mig.config.state=success",
    ),
    (
        "nvrm-insufficient-power",
        "Mar 02 10:11:12 host kernel: NVRM: GPU 0000:13:00.0: GPU does not have the necessary "
        "power cables connected.",
        ("auxiliary power", "EPS"),
        "NVRM: GPU 0000:13:00.0: RmInitAdapter failed! (0x24:0x1c:1447)",
    ),
    (
        "c10d-port-in-use",
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 2333, useIpv6: false, code: -98, name: EADDRINUSE, message: "
        "address already in use",
        ("MASTER_PORT", "--master_port"),
        "torch.distributed.DistNetworkError: The client socket has timed out after 1800s while "
        "trying to connect to (10.0.0.1, 29500).",
    ),
    (
        "nvrtc-gpu-arch-unknown",
        "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
        ("NVRTC", "CUDA 12.8"),
        "nvrtc: error: failed to open libnvrtc-builtins.so.12.1",
    ),
    (
        "torch-load-cuda-checkpoint",
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use "
        "torch.load with map_location=torch.device('cpu') to map your storages to the CPU.",
        ("map_location='cpu'", "torch.version.cuda"),
        "torch.cuda.is_available() returns True",
    ),
    (
        "nvidia-smi-not-found",
        "/bin/sh: 1: nvidia-smi: not found",
        ("no nvidia-smi here", "--gpus all"),
        "nvidia-smi: option --query-gpu requires --format",
    ),
    (
        "docker-gpus-flag-unknown",
        "unknown flag: --gpus\nSee 'docker run --help'.",
        ("Docker older than 19.03", "nvidia.com/gpu=all"),
        "unknown flag: --gpu-memory-utilization",
    ),
    (
        "docker-unknown-runtime",
        "docker: Error response from daemon: Unknown runtime specified nvidia.",
        ("no runtime named nvidia", "nvidia-ctk runtime configure"),
        "docker: Error response from daemon: Unknown runtime specified runsc.",
    ),
    (
        "jetson-nvmap-out-of-memory",
        "NvMapMemAllocInternalTagged: 1075072515 error 12\nNvMapMemHandleAlloc: error 0",
        ("share the board's memory", "tegrastats"),
        "NvMapMemCacheMaint:1075072524 failed [14]",
    ),
    (
        "ollama-cudasetdevice-failed",
        'time=2024-06-01T10:00:00.000Z level=DEBUG source=gpu.go:420 msg="cudaSetDevice err: 35"',
        ("cudaErrorInsufficientDriver (35)", "nvidia-smi"),
        "cudaSetDevice(0) returned cudaSuccess",
    ),
    (
        "illegal-instruction",
        ">>> import torch\nIllegal instruction (core dumped)",
        ("OpenBLAS", "OPENBLAS_CORETYPE=ARMV8"),
        "RuntimeError: CUDA error: an illegal instruction was encountered",
    ),
    (
        "gpu-operator-driver-image-missing",
        'Failed to pull image "nvcr.io/nvidia/driver:460.73.01-ubuntu21.10": rpc error: code = '
        'NotFound desc = failed to pull and unpack image "nvcr.io/nvidia/driver:460.73.01-'
        'ubuntu21.10": failed to resolve reference "nvcr.io/nvidia/driver:460.73.01-ubuntu21.10": '
        "nvcr.io/nvidia/driver:460.73.01-ubuntu21.10: not found",
        ("driver image 460.73.01-ubuntu21.10", "driver.version"),
        'Normal  Pulling  15m  kubelet  Pulling image "nvcr.io/nvidia/driver:550.54.15-'
        'ubuntu22.04"',
    ),
]


def _line_finding(read: Read, matrix: Matrix, text: str) -> list[Finding]:
    return [f for f in run_checks(read(text + "\n"), matrix).findings if f.code == "report-error"]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_posted_line_is_named_with_its_numbers(
    read: Read, matrix: Matrix, case: tuple[str, str, tuple[str, ...], str]
) -> None:
    code, line, words, near = case
    (error,) = _line_finding(read, matrix, line)
    known = load_signatures().by_code[code]
    assert error.subject == code
    # nothing in a bare line explains it, so it keeps its own severity
    assert error.severity is Severity(known.severity or "error")
    for word in words:
        assert word in f"{error.detail} {error.fix}", word
    assert not known.compiled.search(near)
    assert code not in _subjects(read, matrix, near)


def _subjects(read: Read, matrix: Matrix, text: str) -> list[str]:
    """The signatures a paste's lines are named by; none when nothing in it is read."""
    try:
        return [f.subject for f in _line_finding(read, matrix, text)]
    except FactsError:  # "no report recognised": not one fact or known line
        return []


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "2017-06-13 00:53:55.614764: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:"
            "893] successful NUMA node read from SysFS had negative value (-1), but there must be "
            "at least one NUMA node, so returning NUMA node zero",
            "tf-numa-node-unknown",
        ),
        (
            "2021-11-05 09:30:48.424570: W tensorflow/core/common_runtime/bfc_allocator.cc:271] "
            "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.55GiB with "
            "freed_by_count=0. The caller indicates that this is not a failure, but may mean that "
            "there could be performance gains if more memory were available.",
            "tf-allocator-fallback",
        ),
        (
            "h100-kickoff:2340:2384 [4] NCCL INFO Failed to open libibverbs.so[.1]",
            "nccl-no-ibverbs",
        ),
        ("node1:3124:3160 [0] NCCL INFO NET/IB : No device found.", "nccl-no-ibverbs"),
        (
            "WARNING: All log messages before absl::InitializeLog() is called are written to "
            "STDERR",
            "absl-log-notice",
        ),
        (
            "2021-01-04 12:44:13.256862: I tensorflow/compiler/xla/service/service.cc:168] XLA "
            "service 0x1e152923800 initialized for platform CUDA (this does not guarantee that XLA "
            "will be used). Devices:",
            "xla-service-notice",
        ),
        (
            "[    1.112630] nvidia: module verification failed: signature and/or required key "
            "missing - tainting kernel",
            "module-unsigned-taint",
        ),
        (
            "2023-08-29 12:35:30.933110: I tensorflow/core/platform/cpu_feature_guard.cc:182] This "
            "TensorFlow binary is optimized to use available CPU instructions in "
            "performance-critical operations.",
            "tf-cpu-features",
        ),
        (
            "2024-08-10 09:16:11.569780: I tensorflow/core/util/port.cc:153] oneDNN custom "
            "operations are on. You may see slightly different numerical results due to "
            "floating-point round-off errors from different computation orders.",
            "tf-onednn-notice",
        ),
        (
            "INFO 03-23 19:17:38 cuda.py:184] Cannot use FlashAttention-2 backend for Volta and "
            "Turing GPUs.",
            "vllm-no-flash-attn",
        ),
    ],
)
def test_harmless_lines_raise_no_alarm(read: Read, matrix: Matrix, line: str, code: str) -> None:
    run = run_checks(read(line + "\n"), matrix)
    (error,) = [f for f in run.findings if f.code == "report-error"]
    assert (error.subject, error.severity) == (code, Severity.INFO)
    # the cause says why nothing is wrong
    said = ("harmless", "not an error", "normally", "nothing is wrong")
    assert any(words in error.detail for words in said)
    assert run.exit_code == 0


def test_warnings_that_slow_a_program_state_its_versions(read: Read, matrix: Matrix) -> None:
    line = (
        "2024-05-28 04:48:02.870689: W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The "
        "NVIDIA driver's CUDA version is 12.4 which is older than the ptxas CUDA version "
        "(12.5.40). Because the driver is older than the ptxas version, XLA is disabling parallel "
        "compilation, which may slow down compilation."
    )
    facts = read(line + "\n")
    assert facts.nvml.cuda_driver_version == "12.4"  # the line states the driver's CUDA
    (error,) = [f for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert (error.subject, error.severity) == ("xla-driver-older-than-ptxas", Severity.WARN)
    assert "CUDA 12.5.40" in error.detail
    assert "CUDA 12.4" in error.detail


def test_a_gpu_the_line_names_gets_its_compute_capability(read: Read) -> None:
    facts = read(
        "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the "
        "triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.1\n"
    )
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA GeForce GTX 1080 Ti", "6.1")


def test_every_example_is_found_in_a_paste_of_its_own() -> None:
    # the search skips keywords whose anchor word is absent: no example may be lost to it
    for known in load_signatures().signatures:
        for example in known.examples:
            draft = Draft()
            errors.parse(f"{example}\n", draft)
            assert draft.errors, (known.code, example)


def test_a_long_log_prefix_keeps_the_numbers_of_the_message(read: Read, matrix: Matrix) -> None:
    prefix = "2025-01-01 10:00:00.000000: I " + "external/local_xla/" * 12 + "gpu_device.cc:2020] "
    line = (
        prefix + "Ignoring visible gpu device (device: 0, name: Quadro K4200, pci bus id: "
        "0000:03:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum "
        "required Cuda capability is 3.5."
    )
    assert len(line) > 300
    (error,) = _line_finding(read, matrix, line)
    assert "Quadro K4200: its compute capability 3.0 is below the 3.5" in error.detail
