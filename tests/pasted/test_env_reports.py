"""The environment reports that GPU projects' issue templates ask for, in each tool's own format:
each is read into the facts the live probes record (GPU names and memory, torch and its CUDA,
the driver, Python), and a healthy one raises no warning or error."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import FrameworkFacts, HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, named_lines, warn_or_error

Read = Callable[[str], HostFacts]

MMDET = """\
sys.platform: linux
Python: 3.8.18 (default, Sep 11 2023, 13:40:15) [GCC 11.2.0]
CUDA available: True
MUSA available: False
numpy_random_seed: 2147483648
GPU 0,1: NVIDIA GeForce RTX 3090
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 11.7, V11.7.99
PyTorch: 1.13.1+cu117
PyTorch compiling details: PyTorch built with:
  - GCC 9.3
  - CUDA Runtime 11.7
  - CuDNN 8.5
  - Build settings: BLAS_INFO=mkl, CUDA_VERSION=11.7, TORCH_VERSION=1.13.1, USE_CUDA=ON,

TorchVision: 0.14.1+cu117
MMEngine: 0.10.3
MMDetection: 3.3.0
"""
DETECTRON2 = """\
----------------------  -------------------------------------------------------------------
sys.platform            linux
Python                  3.8.10 (default, Nov 22 2023, 10:22:35) [GCC 9.4.0]
detectron2              0.6 @/workspace/detectron2/detectron2
CUDA compiler           CUDA 11.3
PyTorch                 1.10.1+cu113 @/usr/local/lib/python3.8/dist-packages/torch
PyTorch debug build     False
GPU available           Yes
GPU 0,1,2,3             Tesla V100-SXM2-16GB (arch=7.0)
Driver version          470.82.01
CUDA_HOME               /usr/local/cuda
----------------------  -------------------------------------------------------------------
PyTorch built with:
  - CUDA Runtime 11.3
  - Build settings: CUDA_VERSION=11.3, TORCH_VERSION=1.10.1, USE_CUDA=ON,
"""
SGLANG = """\
Python: 3.10.16 (main, Dec  4 2024, 08:53:37) [GCC 9.4.0]
CUDA available: True
GPU 0,1: NVIDIA H100 80GB HBM3
GPU 0,1 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
CUDA Driver Version: 550.127.08
PyTorch: 2.5.1+cu124
sglang: 0.4.1.post4
ulimit soft: 1048576
"""
XFORMERS = """\
xFormers 0.0.23.post1
memory_efficient_attention.cutlassF:               available
pytorch.version:                                   2.1.2+cu121
pytorch.cuda:                                      available
gpu.compute_capability:                            8.9
gpu.name:                                          NVIDIA GeForce RTX 4090
build.cuda_version:                                1201
build.torch_version:                               2.1.2+cu121
"""
CUPY = """\
Python Version               : 3.10.12
CuPy Version                 : 13.0.0
CUDA Driver Version          : 12020
Device 0 Name                : NVIDIA GeForce RTX 3080
Device 0 Compute Capability  : 86
"""
NUMBA = """\
__Python Information__
Python Version                                : 3.11.7
__CUDA Information__
CUDA Device Initialized                       : True
CUDA Driver Version                           : (12, 2)
CUDA Detect Output:
Found 1 CUDA devices
id 0    b'NVIDIA GeForce RTX 3090'                              [SUPPORTED]
                      Compute Capability: 8.6
"""
A1111_SYSINFO = """\
{
    "Platform": "Windows-10-10.0.22631-SP0",
    "Python": "3.10.11",
    "Version": "v1.10.1",
    "Torch env info": {
        "torch_version": "2.1.2+cu121",
        "is_debug_build": "False",
        "cuda_compiled_version": "12.1",
        "python_version": "3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 \
64 bit (AMD64)] (64-bit runtime)",
        "is_cuda_available": "True",
        "nvidia_driver_version": "551.86",
        "nvidia_gpu_models": [
            "GPU 0: NVIDIA GeForce RTX 4090",
            "GPU 1: NVIDIA GeForce RTX 3090"
        ],
        "hip_compiled_version": "N/A"
    },
    "Exceptions": []
}
"""
COMFY = """\
** ComfyUI startup time: 2024-12-01 10:11:12.345
** Platform: Linux
** Python version: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0]
Total VRAM 24564 MB, total RAM 64214 MB
pytorch version: 2.5.1+cu124
Set vram state to: NORMAL_VRAM
Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync
Using pytorch attention
"""
INVOKEAI = (
    "[2024-09-20 14:02:12,101]::[InvokeAI]::INFO --> Using torch device: NVIDIA GeForce RTX 3080\n"
)
ULTRALYTICS = """\
Ultralytics 8.3.69 🚀 Python-3.10.14 torch-2.3.1+cu121 CUDA:0 (NVIDIA A100-SXM4-80GB, 81051MiB)
                                                      CUDA:1 (NVIDIA A100-SXM4-80GB, 81051MiB)
Setup complete ✅ (128 CPUs, 1007.7 GB RAM, 812.0/3519.0 GB disk)
"""


def _torch(facts: HostFacts) -> FrameworkFacts:
    return next(fw for fw in facts.frameworks if fw.name == "torch")


def _gpus(facts: HostFacts) -> list[tuple[str | None, str | None, int | None]]:
    return [(g.name, g.compute_capability, g.memory_total_bytes) for g in facts.nvml.gpus]


RTX_3090 = ("NVIDIA GeForce RTX 3090", None, None)
EXPECTED = [
    # text, (name, stated compute capability, memory) per GPU, torch, its CUDA, driver, Python
    (MMDET, [RTX_3090] * 2, "1.13.1+cu117", "11.7", None, "3.8.18"),
    (
        DETECTRON2,
        [("Tesla V100-SXM2-16GB", "7.0", None)] * 4,
        "1.10.1+cu113",
        "11.3",
        "470.82.01",
        "3.8.10",
    ),
    (
        SGLANG,
        [("NVIDIA H100 80GB HBM3", "9.0", None)] * 2,
        "2.5.1+cu124",
        "12.4",
        "550.127.08",
        "3.10.16",
    ),
    (XFORMERS, [("NVIDIA GeForce RTX 4090", "8.9", None)], "2.1.2+cu121", "12.1", None, None),
    (
        A1111_SYSINFO,
        [("NVIDIA GeForce RTX 4090", None, None), RTX_3090],
        "2.1.2+cu121",
        "12.1",
        "551.86",
        "3.10.11",
    ),
    (
        COMFY,
        [("NVIDIA GeForce RTX 4090", None, 24564 << 20)],
        "2.5.1+cu124",
        "12.4",
        None,
        "3.11.9",
    ),
    (
        ULTRALYTICS,
        [("NVIDIA A100-SXM4-80GB", None, 81051 << 20)] * 2,
        "2.3.1+cu121",
        "12.1",
        None,
        "3.10.14",
    ),
]


@pytest.mark.parametrize("expected", EXPECTED)
def test_an_environment_report_gives_the_host_facts(
    read: Read, matrix: Matrix, expected: tuple[object, ...]
) -> None:
    text, gpus, torch, cuda, driver, python = expected
    assert isinstance(text, str)
    assert isinstance(gpus, list)
    facts = read(text)
    got = _gpus(facts)
    # the name and what the report says of it (a compute capability the matrix knows may be
    # filled in from the name: only a stated one is asked for here)
    assert [g[0] for g in got] == [g[0] for g in gpus]
    for (_, cc, memory), (_, got_cc, got_memory) in zip(gpus, got):
        assert cc is None or got_cc == cc
        assert memory is None or got_memory == memory
    assert (_torch(facts).version, _torch(facts).cuda) == (torch, cuda)
    assert facts.nvml.driver_version == driver
    assert python is None or facts.platform.python_version == python
    assert warn_or_error(findings_of(read, matrix, text)) == []


def test_cupy_and_numba_name_the_gpu_python_and_the_driver_cuda(read: Read) -> None:
    cupy = read(CUPY)
    assert _gpus(cupy) == [("NVIDIA GeForce RTX 3080", "8.6", None)]
    assert cupy.platform.python_version == "3.10.12"
    numba = read(NUMBA)
    assert [g.name for g in numba.nvml.gpus] == ["NVIDIA GeForce RTX 3090"]
    assert numba.platform.python_version == "3.11.7"
    assert numba.nvml.cuda_driver_version == "12.2"


def test_invokeai_names_its_torch_device(read: Read) -> None:
    assert [g.name for g in read(INVOKEAI).nvml.gpus] == ["NVIDIA GeForce RTX 3080"]


def test_a_table_without_cuda_says_torch_cannot_use_it(read: Read, matrix: Matrix) -> None:
    text = MMDET.replace("CUDA available: True", "CUDA available: False").replace(
        "GPU 0,1: NVIDIA GeForce RTX 3090\n", ""
    )
    facts = read(text)
    assert facts.nvml.gpus == ()
    assert _torch(facts).version == "1.13.1+cu117"  # the build's name, not TORCH_VERSION=1.13.1


def test_xformers_built_for_another_torch_is_told(read: Read) -> None:
    installed = "pytorch.version:                                   "
    text = XFORMERS.replace(f"{installed}2.1.2+cu121", f"{installed}2.2.0+cu121")
    facts = read(text)
    assert _torch(facts).version == "2.2.0+cu121"
    assert facts.report is not None
    assert any("built for torch 2.1.2+cu121" in n for n in facts.report.notes)
    assert not any("built for torch" in n for n in read(XFORMERS).report.notes)  # type: ignore[union-attr]


def test_comfyui_on_the_cpu_names_no_gpu(read: Read) -> None:
    text = COMFY.replace("Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync", "Device: cpu")
    facts = read(text)
    assert facts.nvml.gpus == ()
    assert facts.report is not None
    assert any("ComfyUI runs on the CPU" in n for n in facts.report.notes)


def test_onnxruntime_and_its_gpu_package_both_installed_is_told(read: Read) -> None:
    both = "onnxruntime               1.18.0\nonnxruntime-gpu           1.18.0\ntorch   2.3.1\n"
    notes = read(both).report.notes  # type: ignore[union-attr]
    assert any("both onnxruntime 1.18.0 (CPU) and onnxruntime-gpu 1.18.0" in n for n in notes)
    alone = read("onnxruntime-gpu           1.18.0\ntorch   2.3.1\n").report.notes  # type: ignore[union-attr]
    assert not any("both onnxruntime" in n for n in alone)


def test_onnxruntime_listing_its_cuda_provider_is_read(read: Read) -> None:
    text = ">>> ort.get_available_providers()\n['CUDAExecutionProvider', 'CPUExecutionProvider']\n"
    notes = read(text).report.notes  # type: ignore[union-attr]
    assert any("CUDAExecutionProvider" in n for n in notes)


def test_conda_lists_the_interpreter_with_its_build_string(read: Read) -> None:
    text = (
        "# Name                    Version                   Build  Channel\n"
        "python                    3.10.14              h955ad1f_1\n"
        "pytorch                   2.3.1           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n"
    )
    assert read(text).platform.python_version == "3.10.14"
    # a package whose name starts with "python" is not the interpreter
    assert read("python-dateutil   2.9.0\ntorch 2.3.1\n").platform.python_version is None


@pytest.mark.parametrize(
    "line",
    [
        "GPU 0,1: AMD Instinct MI250X",  # not an NVIDIA name: the AMD readers' part
        "Device: cuda:0",  # no name and allocator after it
        "Using torch device: cuda",  # the device type, not a GPU's name
    ],
)
def test_near_misses_name_no_nvidia_gpu(read: Read, line: str) -> None:
    text = f"sys.platform: linux\n{line}\nPyTorch: 2.1.0+cu121\n"
    assert read(text).nvml.gpus == ()


PADDLE_NO_GPU = (
    "Running verify PaddlePaddle program ...\n"
    "WARNING:root:You are using GPU version PaddlePaddle, but there is no GPU detected on your "
    "machine. Maybe CUDA devices is not set properly.\n"
    " Original Error is \n"
    "PaddlePaddle works well on 1 CPU.\n"
)
PADDLE_PARALLEL = (
    "W1203 10:01:11.101010  4242 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute "
    "Capability: 8.0, Driver API Version: 12.4, Runtime API Version: 12.3\n"
    "PaddlePaddle works well on 1 GPU.\n"
    "WARNING:root:PaddlePaddle meets some problem with 4 GPUs. This may be caused by:\n"
    " 1. There is not enough GPUs visible on your system\n"
    "PaddlePaddle is installed successfully ONLY for single GPU! Let's start deep learning with "
    "PaddlePaddle now.\n"
)
ULTRALYTICS_NO_CUDA = (
    "Ultralytics 8.3.2 🚀 Python-3.10.12 torch-2.4.1+cpu\n"
    "ValueError: Invalid CUDA 'device=0,1' requested. Use 'device=cpu' or pass valid CUDA "
    "device(s) if available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n"
    "\n"
    "torch.cuda.is_available(): False\n"
    "torch.cuda.device_count(): 0\n"
    "os.environ['CUDA_VISIBLE_DEVICES']: None\n"
)


def test_paddle_run_check_without_a_gpu_is_named(read: Read, matrix: Matrix) -> None:
    found = named_lines(read, matrix, PADDLE_NO_GPU, "paddle-gpu-not-detected")
    assert [f.severity for f in found] == [Severity.ERROR]
    # the check that ran well on the GPU names nothing
    healthy = PADDLE_PARALLEL.partition("WARNING:root")[0] + "PaddlePaddle works well on 4 GPUs.\n"
    assert warn_or_error(findings_of(read, matrix, healthy)) == []


def test_paddle_multi_gpu_failure_is_a_warning_with_its_count(read: Read, matrix: Matrix) -> None:
    found = named_lines(read, matrix, PADDLE_PARALLEL, "paddle-multi-device-check-failed")
    assert [f.severity for f in found] == [Severity.WARN]
    assert "over 4 GPUs" in found[0].detail
    # the summary line that only says it works on one GPU is no second finding of it
    assert (
        named_lines(
            read, matrix, "PaddlePaddle works well on 1 GPU.\n", "paddle-multi-device-check-failed"
        )
        == []
    )


def test_ultralytics_asked_for_a_device_torch_lacks(read: Read, matrix: Matrix) -> None:
    found = named_lines(read, matrix, ULTRALYTICS_NO_CUDA, "ultralytics-invalid-cuda-device")
    assert [f.severity for f in found] == [Severity.ERROR]
    assert "device(s) 0,1" in found[0].detail
    # the select_device banner alone (a CPU run asked for) names nothing
    banner = "Ultralytics 8.3.2 🚀 Python-3.10.12 torch-2.4.1+cpu CPU (Intel Core(TM) i7-10700)\n"
    assert named_lines(read, matrix, banner, "ultralytics-invalid-cuda-device") == []
