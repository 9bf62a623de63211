"""Facts that pastes hold in shapes the reader did not read: NVML's return codes in every
spelling, a GeForce model's number written alone, a kernel release behind a form's hint or with
WSL's four numbers, the Python of a traceback's paths, the open kernel modules' bug form, a
JetPack named with "sdk", the L4T BSP's file name. Each with the near miss that must stay unread."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor import nvml_codes
from gpudoctor.checks.base import Intent
from gpudoctor.checks.summary import headlines
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "status"),
    [
        # the Rust nvml-wrapper's variant, as a miner's panic prints it
        (
            "thread 'main' panicked at 'Failed to initialize nvml: DriverNotLoaded', "
            "src/environment/mod.rs:37:31",
            "driver_not_loaded",
        ),
        # nvidia-ml-py's exception class
        ("pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded", "driver_not_loaded"),
        ("pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found", "library_not_found"),
        # the C enum's name and the bare number a call returned
        ("nvmlInit_v2 failed: NVML_ERROR_LIB_RM_VERSION_MISMATCH", "lib_rm_version_mismatch"),
        ("nvmlInit() returned 9", "driver_not_loaded"),
        ("Error: nvmlInit_v2 failed with error code 18", "lib_rm_version_mismatch"),
        ("NVML_ERROR 4", "no_permission"),
    ],
)
def test_nvml_return_codes_in_every_spelling(read: Read, line: str, status: str) -> None:
    assert read(line + "\n").nvml.status == status


@pytest.mark.parametrize(
    "line",
    [
        "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded",
        "thread 'main' panicked at 'Failed to initialize nvml: DriverNotLoaded', src/main.rs:37:31",
    ],
)
def test_driver_not_loaded_in_other_spellings_is_the_known_line(
    read: Read, matrix: Matrix, line: str
) -> None:
    assert error_lines(findings_of(read, matrix, line + "\n"), "nvml-driver-not-loaded")
    # near miss: code that catches the exception is no report of it
    catching = findings_of(
        read,
        matrix,
        "except pynvml.NVMLError_DriverNotLoaded:\n    pass\nDriver Version: 550.54.15\n",
    )
    assert not error_lines(catching, "nvml-driver-not-loaded")


@pytest.mark.parametrize(
    "line",
    [
        "    NVML_ERROR_DRIVER_NOT_LOADED = 9,",  # nvml.h's enum pasted: a declaration
        "except pynvml.NVMLError_DriverNotLoaded:",  # code that catches it
        "nvml returned 3 devices",  # a count, not a return code
        "nvmlInit() returned 0",  # NVML_SUCCESS
        "pynvml.NVMLError_NotSupported: Not Supported",  # not a failed init
    ],
)
def test_nvml_near_misses_are_no_status(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert facts.nvml.status == "not_run"


def test_nvml_codes_one_table_for_probe_and_paste() -> None:
    assert nvml_codes.status_of_code(9) == "driver_not_loaded"
    assert nvml_codes.status_of_name("DriverNotLoaded") == "driver_not_loaded"
    assert nvml_codes.status_of_name("DRIVER_NOT_LOADED") == "driver_not_loaded"
    assert nvml_codes.status_of_code(3) is None  # NVML_ERROR_NOT_SUPPORTED: no init status
    assert nvml_codes.status_of_name("NotSupported") is None


@pytest.mark.parametrize(
    ("line", "name", "count", "cc"),
    [
        ("I ran iw3 on it, I actually had a 1050ti graphics card", "1050", 1, "6.1"),
        ("I have cuda version 11.8 and 4090 nvidia GPU on a linux machine", "4090", 1, "8.9"),
        ("training on 2x 3090 GPUs", "3090", 2, "8.6"),
    ],
)
def test_a_geforce_number_alone_beside_gpu_words(
    read: Read, line: str, name: str, count: int, cc: str
) -> None:
    gpus = read(line + "\n").nvml.gpus
    assert [(g.name, g.compute_capability) for g in gpus] == [(name, cc)] * count


@pytest.mark.parametrize(
    "line",
    [
        "the server listens on port 3090 and 8080",  # no GPU word on the line
        "nvidia gpu server listening on port 4090",  # a port number beside GPU words
        "Fixed in build 4090 of the GPU tools",
    ],
)
def test_a_bare_number_without_gpu_words_is_no_gpu(read: Read, line: str) -> None:
    try:
        facts = read(line + "\nDriver Version: 550.54.15\n")
    except FactsError:
        return
    assert facts.nvml.gpus == ()


def test_kernel_behind_a_form_hint_and_wsl_kernel(read: Read) -> None:
    facts = read(
        "- Kubernetes version (use `kubectl version`): 1.8.1\n"
        "- Kernel (e.g. `uname -a`): 4.9.0-0.bpo.3-amd64\n"
    )
    assert facts.kernel.release == "4.9.0-0.bpo.3-amd64"
    # an issue form's heading and its value: WSL's kernel has four numbers
    facts = read("### Kernel Version\n\n5.15.146.1\n\n### Distro Version\n\nUbuntu 22.04\n")
    assert facts.kernel.release == "5.15.146.1"
    # near miss: a kernel's major.minor alone is no release
    facts = read("kernel 5.15 on Ubuntu 22.04\n")
    assert facts.kernel.release is None


def test_python_of_a_traceback_and_of_a_list(read: Read) -> None:
    facts = read(
        "File /opt/conda/envs/py310/lib/python3.10/site-packages/torch/cuda/__init__.py:419, "
        "in get_device_name(device)\n"
    )
    assert facts.platform.python_version == "3.10"
    assert read("- Python version: 3.10.6\n").platform.python_version == "3.10.6"
    # near miss: Python 2 and a requirement's bound are not the interpreter that ran
    for text in ("requires-python:>=2.7 (from jetson-stats)\n", "Python 2.7.18\n"):
        try:
            facts = read(text)
        except FactsError:
            continue
        assert facts.platform.python_version is None


def test_open_kernel_modules_form(read: Read) -> None:
    facts = read(
        "### NVIDIA Open GPU Kernel Modules Version\n\n560.28.03\n\n"
        "### Kernel Release\n\n5.15.0-25-generic\n"
    )
    assert facts.nvml.driver_version == "560.28.03"
    assert facts.kernel.nvidia_module_flavor == "open"
    assert facts.kernel.release == "5.15.0-25-generic"
    # near miss: the form answered "None" names no version
    with pytest.raises(FactsError):
        read("### NVIDIA Open GPU Kernel Modules Version\n\nNone\n")


def test_jetpack_sdk_and_the_l4t_bsp_file(read: Read) -> None:
    facts = read(
        "i use jetson xavier nv hardware platform.\njetpack sdk 4.6.1\n"
        "Jetson_Linux_R32.7.1_aarch64.tbz2\n"
    )
    assert facts.platform.jetpack_release == "4.6.1"
    assert facts.platform.l4t_release == "32.7.1"
    assert read("Tegra186_Linux_R32.4.3_aarch64.tbz2\n").platform.l4t_release == "32.4.3"
    # near miss: another board's BSP is no L4T release
    with pytest.raises(FactsError):
        read("Rockchip_Linux_R32.7.1_aarch64.tbz2\n")


_R610_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA B200                    On  |   00000000:63:00.0 Off |                    0 |
| N/A   26C    P0            139W / 1000W |       0MiB / 183359MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA B200                    On  |   00000000:68:00.0 Off |                    0 |
| N/A   30C    P0            142W / 1000W |       0MiB / 183359MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""


def test_r610_header_names_kmd_and_cuda_umd_versions(read: Read) -> None:
    facts = read(_R610_TABLE)
    assert (facts.nvml.driver_version, facts.nvml.cuda_driver_version) == ("610.43.02", "13.3")
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA B200"] * 2
    # the -q form and a line quoted alone
    facts = read(
        "==============NVSMI LOG==============\n\nKMD Version : 610.43.02\n"
        "CUDA UMD Version : 13.3\n\nAttached GPUs : 1\n"
    )
    assert (facts.nvml.driver_version, facts.nvml.cuda_driver_version) == ("610.43.02", "13.3")
    assert read("nvidia-smi says CUDA UMD Version: 13.4\n").nvml.cuda_driver_version == "13.4"
    # near miss: an AMD/ROCm "KMD"/"UMD" version is no NVIDIA driver
    with pytest.raises(FactsError):
        read("ROCm KMD version: 6.4.0, UMD version 6.4.0\n")


def test_gpu_sharing_schedulers_resources_are_kubernetes(read: Read) -> None:
    facts = read(
        "    resources:\n      limits:\n        tencent.com/vcuda-core: 100\n"
        "        tencent.com/vcuda-memory: 1\n"
        "0/3 nodes are available: 3 Insufficient tencent.com/vcuda-core.\n"
    )
    assert facts.platform.kubernetes is True
    assert read("limits:\n  volcano.sh/vgpu-number: 2\n").platform.kubernetes is True
    assert read("  nvidia.com/gpumem: 4096\n").platform.kubernetes is True
    # near miss: another resource of the same domains is no GPU-sharing resource
    with pytest.raises(FactsError):
        read("see https://help.aliyun.com/gpu-instances and tencent.com/vcuda-docs\n")


def test_a_heading_glued_to_its_fence_is_kept(read: Read) -> None:
    facts = read(
        "```Allocatable:\n  cpu:                        8\n  nvidia.com/gpu:             1\n"
        "  pods:                       110\n```\n"
    )
    assert facts.platform.k8s_gpu_allocatable == 1
    # near miss: a fence's language word is no heading and no text
    with pytest.raises(FactsError):
        read("```yaml\n  cpu: 8\n```\n")


def test_a_conda_spec_quoted_anywhere_tells_the_build(read: Read) -> None:
    (torch,) = read("it is pytorch=1.9.0=py3.8_cpu_0).\n").frameworks
    assert (torch.version, torch.cpu_only) == ("1.9.0", True)
    (torch,) = read(
        "pytorch-1.4 pulls: `pytorch/linux-64::pytorch-1.4.0-py3.7_cuda10.1.243_cudnn7.6.3_0`\n"
    ).frameworks
    assert (torch.version, torch.cuda) == ("1.4.0", "10.1")
    # near miss: a spec without a build says nothing of CPU or CUDA
    (torch,) = read("conda install pytorch=1.9.0 cudatoolkit=11.3\n").frameworks
    assert torch.cpu_only is None
    assert torch.cuda is None


def test_the_cudnn_a_framework_loaded(read: Read) -> None:
    line = "I tensorflow/stream_executor/cuda/cuda_dnn.cc:366] Loaded cuDNN version {}\n"
    assert [c.version for c in read(line.format(8201)).cuda_libs.cudnn] == ["8.2.1"]
    assert [c.version for c in read(line.format(90100)).cuda_libs.cudnn] == ["9.1.0"]
    # near miss: a year or a build number is no cuDNN version
    with pytest.raises(FactsError):
        read("Loaded cuDNN version notes from 2024\n")


def test_llama_cpp_device_lines_name_the_gpu(read: Read) -> None:
    facts = read(
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3060) "
        "(0000:01:00.0) - 10886 MiB free\n"
    )
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [
        ("NVIDIA GeForce RTX 3060", "8.6")
    ]
    facts = read("0.00.219.357 I   - CUDA0   : Orin (7485 MiB, 6152 MiB free)\n")
    assert [g.name for g in facts.nvml.gpus] == ["Orin"]
    # near miss: another backend's device is no CUDA GPU
    with pytest.raises(FactsError):
        read("llama_model_load_from_file_impl: using device Vulkan0 (llvmpipe) - 7000 MiB free\n")


def test_windows_as_people_shorten_it(read: Read) -> None:
    facts = read("OS: Win10 Home 22H2 19045.5371\nNVIDIA Driver: v572.16\n")
    assert facts.platform.os_pretty == "Windows 10"
    assert read("OS platform and distribution: Win10x64 Pro\n").platform.os_pretty == "Windows 10"
    # near miss: a word that only begins like it
    with pytest.raises(FactsError):
        read("the winner was Win100 and win10k\n")


@pytest.mark.parametrize(
    ("line", "count"),
    [
        ("My GPU node contains 8x 16GB NVIDIA V100 GPUs", 8),
        ("the box holds dual RTX 3090 cards", 2),
        ("we run two Tesla T4 on this VM", 2),
    ],
)
def test_gpu_counts_as_people_write_them(read: Read, line: str, count: int) -> None:
    assert len(read(line + "\n").nvml.gpus) == count


def test_gpu_count_near_misses(read: Read) -> None:
    # a size alone, and a number that belongs to something else, are no count
    assert len(read("a single RTX 3090 with 24 GB\n").nvml.gpus) == 1
    assert len(read("the 16GB Tesla T4 of this VM\n").nvml.gpus) == 1
    # a hex PCI device id before the name ends in digits that are not a count
    assert len(read("0x2C31 NVIDIA H100 80GB HBM3\n").nvml.gpus) == 1
    assert len(read("device 0x1DB5 NVIDIA Tesla V100\n").nvml.gpus) == 1


def test_jetson_stats_library_list_names_the_toolkit(read: Read) -> None:
    facts = read(
        "Libraries:\n - CUDA: 12.6.68\n - cuDNN: 9.3.0.75\n - TensorRT: 10.3.0.30\n - L4T: 36.4.3\n"
    )
    assert [t.version for t in facts.cuda_libs.toolkits] == ["12.6.68"]
    assert facts.report is not None
    assert not any("CUDA 12.6 is named" in n for n in facts.report.notes)
    # near miss: a two-number CUDA in a list does not say whose it is
    facts = read(" - CUDA: 12.6\n - L4T: 36.4.3\n")
    assert facts.cuda_libs.toolkits == ()


def test_headerless_nvidia_smi_q_fields(read: Read) -> None:
    facts = read(
        "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
        "    Driver Version                        : 535.104.05\n"
        "    CUDA Version                          : 12.2\n"
    )
    assert (facts.nvml.driver_version, facts.nvml.cuda_driver_version) == ("535.104.05", "12.2")
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.0"]
    # near miss: a driver's date and a CUDA major alone are no versions
    with pytest.raises(FactsError):
        read("Driver Date                           : 2024-01-05\nCUDA Version : 12\n")


def test_kubectl_get_node_yaml_capacity(read: Read) -> None:
    facts = read(
        'status:\n  allocatable:\n    cpu: "8"\n    nvidia.com/gpu: "4"\n'
        '  capacity:\n    cpu: "8"\n    nvidia.com/gpu: "4"\n'
    )
    assert (facts.platform.k8s_gpu_capacity, facts.platform.k8s_gpu_allocatable) == (4, 4)
    # near miss: a pod's limits are no node capacity
    facts = read('    resources:\n      limits:\n        nvidia.com/gpu: "1"\n')
    assert facts.platform.k8s_gpu_capacity is None
    assert facts.platform.k8s_gpu_allocatable is None


def test_an_os_label_glued_to_its_value(read: Read) -> None:
    facts = read("My gpu is an rtx 4090\nos:ubuntu 22.04 .\n")
    assert (facts.platform.os_id, facts.platform.os_version) == ("ubuntu", "22.04")
    # near miss: an image reference's "cuda:" is no label of the host's OS
    with pytest.raises(FactsError):
        read("image: nvidia/cuda:ubuntu 22.04\n")


def test_a_path_into_nvidias_wheels(read: Read) -> None:
    facts = read(
        "Could not load library libcudnn_cnn_infer.so.8. Error: /home/u/.local/lib/python3.10/"
        "site-packages/nvidia/cudnn/lib/libcudnn_cnn_infer.so.8: undefined symbol: x\n"
    )
    assert facts.report is not None
    assert any("pip wheel's cudnn library libcudnn_cnn_infer.so.8" in n for n in facts.report.notes)
    # near miss: a system copy is no wheel's (the line is only an error of no known cause)
    other = read("Error: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: cannot open\n")
    assert other.report is not None
    assert not any("pip wheel's" in n for n in other.report.notes)
    assert [e.line for e in other.report.unknown_lines] == [1]


def test_wsl_gpu_driver_in_the_kernel_log(read: Read) -> None:
    facts = read("[    1.634800] hv_vmbus: registering driver dxgkrnl\n")
    assert facts.platform.wsl is True
    # near miss: another Hyper-V driver is no WSL GPU
    with pytest.raises(FactsError):
        read("[    1.634800] hv_vmbus: registering driver hv_netvsc\n")


def test_opencv_build_summary(read: Read) -> None:
    facts = read(
        "['NVIDIA CUDA: YES (ver 11.4, CUFFT CUBLAS FAST_MATH)', 'NVIDIA GPU arch: 53 62 72 87',"
        " 'cuDNN: YES (ver 8.0)']\n"
    )
    assert facts.report is not None
    assert "OpenCV was built with CUDA 11.4" in facts.report.notes
    assert [c.version for c in facts.cuda_libs.cudnn] == ["8.0"]
    # near miss: a build without CUDA names no version
    with pytest.raises(FactsError):
        read("    NVIDIA CUDA:                   NO\n    cuDNN:                         NO\n")


def test_a_platform_release_is_the_kernel(read: Read) -> None:
    facts = read(
        "Machine: aarch64\nSystem: Linux\nDistribution: Ubuntu 22.04\nRelease: 5.15.148-tegra\n"
    )
    assert facts.kernel.release == "5.15.148-tegra"
    # near miss: lsb_release's "Release:" is the distribution's
    facts = read("Distributor ID: Ubuntu\nDescription: Ubuntu 22.04.4 LTS\nRelease: 22.04\n")
    assert facts.kernel.release is None


def test_a_pasted_kubernetes_object_is_named_in_the_platform_line(read: Read) -> None:
    pod = read(
        "kind: Pod\nspec:\n  containers:\n  - resources:\n"
        "      limits:\n        nvidia.com/gpu: 1\n"
    )
    assert headlines(pod, Intent())["platform"].endswith(", Kubernetes")
    # near miss: a host with no Kubernetes object says nothing of it
    host = read("Driver Version: 550.54.15\nUbuntu 22.04\n")
    assert "Kubernetes" not in headlines(host, Intent())["platform"]


def test_a_value_beside_a_gpu_name_is_no_bare_model(read: Read) -> None:
    # darknet's line: the compute capability written as 750 is no GeForce GTX 750
    facts = read(" 0 : compute_capability = 750, cudnn_half = 1, GPU: GeForce RTX 2080 Ti \n")
    assert [g.name for g in facts.nvml.gpus] == ["GeForce RTX 2080 Ti"]
    facts = read("GPU power limit = 3090 W on the NVIDIA GeForce RTX 4090\n")
    assert [g.name for g in facts.nvml.gpus] == ["GeForce RTX 4090"]
