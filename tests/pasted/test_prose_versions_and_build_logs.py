"""Facts that bug reports state in prose and in build logs, in the forms people write them: a
framework's version told by a verb, printed, glued to its name or with its CUDA tag spaced; the
banner of Ultralytics/YOLOv5's select_device(); Python's platform.platform() string; a native
Windows path; conda's platform line; a list that sets values off with a dash; Ubuntu's flavours;
the CUDA versions in torch's extension-build refusal; nvcc handed an architecture that is not a
number. Each with the near miss that must stay unread."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


def _torch(facts: HostFacts) -> str | None:
    return next((f.version for f in facts.frameworks if f.name == "torch"), None)


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("Also checking the torch version reveals 2.0.0+cpu", "2.0.0+cpu"),
        ("torch.__version__  =  1.8.0", "1.8.0"),
        ("python3.6, nvidia driver 460.73, cuda11.1, pytorch1.8.0, gcc5.4.0", "1.8.0"),
        ("I am on torch 2.1 + cu118 with an RTX 4070", "2.1+cu118"),
        ("the pytorch version is 2.3.1", "2.3.1"),
    ],
)
def test_a_torch_version_in_prose(read: Read, line: str, version: str) -> None:
    assert _torch(read(line + "\n")) == version


def test_a_cpu_torch_told_by_a_verb_is_a_cpu_only_build(read: Read) -> None:
    facts = read("Windows 10, RTX 3060 Ti; checking the torch version reveals 2.0.0+cpu\n")
    torch = next(f for f in facts.frameworks if f.name == "torch")
    assert torch.cpu_only is True
    assert facts.platform.os_pretty == "Windows 10"


@pytest.mark.parametrize(
    "line",
    [
        "the torch returns 0.0 loss after epoch 3",  # a verb without "version": a value
        "torch2trt 0.4.0 fails to build",  # another package named after torch
        "I am on torch 2.1 + python 3.10",  # "+ python" is no build tag
    ],
)
def test_torch_near_misses(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert _torch(facts) in (None, "2.1")


def test_tensorflow_gpu_package_name(read: Read) -> None:
    facts = read("Conda 4.10.3\nPython 3.7.9\nTensorflow-gpu  2.6.0\n")
    assert [(f.name, f.version) for f in facts.frameworks] == [("tensorflow", "2.6.0")]


def test_the_ultralytics_select_device_banner(read: Read) -> None:
    facts = read(
        "Ultralytics 8.3.69 \U0001f680 Python-3.8.10 torch-2.1.0a0+41361538.nv23.06 "
        "CUDA:0 (Xavier, 14886MiB)\n"
    )
    assert _torch(facts) == "2.1.0a0+41361538.nv23.06"
    assert facts.platform.python_version == "3.8.10"
    yolo = read("YOLOv5 \U0001f680 v7.0-1-gabc Python-3.10.12 torch-2.0.1+cu118 CPU\n")
    assert _torch(yolo) == "2.0.1+cu118"
    # near miss: pip's wheel file is the .whl rule's, not a banner
    assert no_fact_read(read, "Python-3.10 torch-nightly build notes\n")


@pytest.mark.parametrize(
    ("line", "release", "machine", "os_pretty"),
    [
        (
            "OS                  Linux-5.10.192-tegra-aarch64-with-glibc2.29",
            "5.10.192-tegra",
            "aarch64",
            None,
        ),
        (
            "Platform: Linux-4.15.0-213-generic-x86_64-with-Ubuntu-18.04-bionic",
            "4.15.0-213-generic",
            "x86_64",
            None,
        ),
        ("Python platform: Windows-10-10.0.19045-SP0", None, None, "Windows 10"),
        ("platform: macOS-14.3.1-arm64-arm-64bit", None, "aarch64", "macOS 14.3.1"),
    ],
)
def test_python_platform_strings_anywhere(
    read: Read, line: str, release: str | None, machine: str | None, os_pretty: str | None
) -> None:
    facts = read(line + "\n")
    assert facts.kernel.release == release
    assert facts.platform.machine == machine
    assert facts.platform.os_pretty == os_pretty


def test_platform_string_near_misses(read: Read) -> None:
    # a wheel's platform tag and a Docker image name are no host's platform string
    for line in ("manylinux-with-glibc is a tag family", "image: linux-5.15-with-extras"):
        with pytest.raises(FactsError):
            read(line + "\n")


def test_a_native_windows_path_names_windows(read: Read, matrix: Matrix) -> None:
    text = (
        '  File "C:\\Users\\z\\AppData\\Local\\Programs\\Python\\Python310\\lib\\runpy.py", line '
        "196, in _run_module_as_main\n"
        'OSError: [WinError 127] Error loading "C:\\Users\\e\\anaconda3\\envs\\od\\lib\\site-pa'
        'ckages\\torch\\lib\\cublas64_11.dll" or one of its dependencies.\n'
    )
    facts = read(text)
    assert facts.platform.os_pretty == "Windows"
    assert not facts.platform.wsl


def test_windows_path_near_misses(read: Read) -> None:
    # a WSL path, a URL and a regex escape are no Windows paths
    facts = read("Ubuntu 22.04 on WSL2; /mnt/c/Users/me/project; see https://x.org/a\\b\n")
    assert facts.platform.os_pretty != "Windows"
    assert facts.platform.wsl


@pytest.mark.parametrize(
    ("line", "machine", "named_apple"),
    [
        ("Platform: linux-64", "x86_64", False),
        ("       platform : linux-aarch64", "aarch64", False),
        ("Platform: osx-arm64", "aarch64", True),
    ],
)
def test_condas_platform_line(read: Read, line: str, machine: str, named_apple: bool) -> None:
    facts = read(f"Collecting package metadata (repodata.json): done\n{line}\n")
    assert facts.platform.machine == machine
    assert facts.report is not None
    assert ("apple" in facts.report.named) == named_apple


def test_condas_platform_line_near_miss(read: Read) -> None:
    with pytest.raises(FactsError):
        read("Platform: linux-64 builds are on the roadmap for next year\n")


def test_a_list_that_sets_values_off_with_a_dash(read: Read) -> None:
    facts = read(
        "CPU Architecture - arm64 (Nvdida AGX)\nNVIDIA Driver -       540.4.0\n"
        "CUDA version -       12.6\n"
    )
    assert facts.nvml.driver_version == "540.4.0"
    assert facts.nvml.cuda_driver_version == "12.6"
    # near miss: a dash inside a word is no separator ("driver-535" is a package name's)
    near = read("NVIDIA Driver -       540.4.0\nCUDA version-12.6-ish notes\n")
    assert near.nvml.cuda_driver_version is None


@pytest.mark.parametrize(
    ("line", "os_id"),
    [
        ("### OS Platform and Distribution\n\nKubuntu 22.04\n", "ubuntu"),
        ("Xubuntu 20.04\n", "ubuntu"),
    ],
)
def test_ubuntu_flavours(read: Read, line: str, os_id: str) -> None:
    facts = read(line + "GPU: RTX 2070\n")
    assert facts.platform.os_id == os_id
    # near miss: an image tag's flavour-like word stays the image's
    tag = read("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n")
    assert tag.platform.os_id is None


def test_torchs_extension_build_refusal_states_both_cudas(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError:\n      The detected CUDA version (12.3) mismatches the version that was "
        "used to compile\n      PyTorch (11.8). Please make sure to use the same CUDA versions.\n"
    )
    facts = read(text)
    assert [t.nvcc_version for t in facts.cuda_libs.toolkits] == ["12.3"]
    assert error_lines(findings_of(read, matrix, text), "nvcc-framework-cuda")


@pytest.mark.parametrize(
    "line",
    [
        "nvcc fatal   : Unsupported gpu architecture 'compute_'",
        "  nvcc fatal : Unsupported gpu architecture 'compute_native'",
        "nvcc fatal   : Unsupported gpu architecture 'sm_all-major'",
    ],
)
def test_nvcc_handed_an_architecture_that_is_no_number(
    read: Read, matrix: Matrix, line: str
) -> None:
    findings = findings_of(read, matrix, line + "\n")
    assert error_lines(findings, "nvcc-arch-not-a-number")
    assert not error_lines(findings, "nvcc-gpu-arch")


def test_nvcc_with_a_numbered_architecture_stays_the_toolkit_rule(
    read: Read, matrix: Matrix
) -> None:
    findings = findings_of(
        read, matrix, "nvcc fatal   : Unsupported gpu architecture 'compute_86'\n"
    )
    assert error_lines(findings, "nvcc-gpu-arch")
    assert not error_lines(findings, "nvcc-arch-not-a-number")


def test_prose_facts_raise_no_alarm_by_themselves(read: Read, matrix: Matrix) -> None:
    text = (
        "Ubuntu 22.04 on WSL2, Nvidia RTX 3090\n"
        "Platform: Linux-5.15.133.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\n"
        "torch version is 2.1.0+cu118\n"
    )
    assert warn_or_error(findings_of(read, matrix, text)) == []


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: invalid device function",
        "OpenCV Error: Gpu API call (invalid device function) in copy, file /home/nvidia/opencv/"
        "modules/cudev/include/opencv2/cudev/grid/detail/copy.hpp, line 78",
        "GPUassert: invalid device function kernel.cu 42",
    ],
)
def test_cudas_invalid_device_function(read: Read, matrix: Matrix, line: str) -> None:
    assert error_lines(findings_of(read, matrix, line + "\n"), "cuda-invalid-device-function")


def test_rocms_invalid_device_function_stays_hips(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, "ROCm error: invalid device function\n")
    assert error_lines(findings, "hip-invalid-device-function")
    assert not error_lines(findings, "cuda-invalid-device-function")


def test_a_cmd_prompt_names_windows(read: Read) -> None:
    facts = read("(tensorflow1) C:\\> python train.py\n")
    assert facts.platform.os_pretty == "Windows"


def _nvcc(facts: HostFacts) -> list[str | None]:
    return [t.nvcc_version for t in facts.cuda_libs.toolkits]


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("-- The CUDA compiler identification is NVIDIA 12.2.140", "12.2.140"),
        ('-- Found CUDAToolkit: /usr/local/cuda/include (found version "12.1.105")', "12.1.105"),
        (
            '-- Found CUDA: /usr/local/cuda-11.8 (found suitable version "11.8", minimum '
            'required is "9.0")',
            "11.8",
        ),
        ("-- CUDA detected: 11.0", "11.0"),
        ("-- Caffe2: CUDA detected: 12.1", "12.1"),
    ],
)
def test_cmakes_status_lines_name_the_cuda_toolkit(read: Read, line: str, version: str) -> None:
    assert _nvcc(read(line + "\n")) == [version]


@pytest.mark.parametrize(
    "line",
    [
        "-- The CXX compiler identification is GNU 11.4.0",
        "-- Found CUDAToolkit: /usr/local/cuda/include",
        "-- CUDA detected: no",
    ],
)
def test_cmake_near_misses(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert _nvcc(facts) == []


def test_caffes_cudnn_status_line(read: Read) -> None:
    facts = read(
        "-- Found cuDNN: ver. 8.3.2 found (include: /usr/local/cuda/include, library: "
        "/usr/local/cuda/lib64/libcudnn.so)\n"
    )
    assert [lib.version for lib in facts.cuda_libs.cudnn] == ["8.3.2"]


def test_a_requirements_files_pins_with_extras(read: Read) -> None:
    facts = read("torch==2.1.0\ntensorflow[and-cuda]==2.15.0\nnumpy>=1.24\n")
    assert sorted((f.name, f.version) for f in facts.frameworks) == [
        ("tensorflow", "2.15.0"),
        ("torch", "2.1.0"),
    ]
    # near miss: an extra without a pinned version says nothing of the version
    bare = read("torch==2.1.0\ntensorflow[and-cuda]\n")
    assert [f.name for f in bare.frameworks] == ["torch"]


def test_the_windows_toolkit_folder_and_cudnn_archive(read: Read) -> None:
    facts = read(
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin\\nvcc.exe\n"
        "C:\\Users\\me\\Downloads\\cudnn-windows-x86_64-8.9.7.29_cuda12-archive\\include\n"
    )
    assert _nvcc(facts) == ["12.6"]
    assert [lib.version for lib in facts.cuda_libs.cudnn] == ["8.9.7.29"]
    # near miss: the folder named in a PATH list is a toolkit named, not the nvcc that runs
    listed = read("PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin;C:\\x\n")
    assert _nvcc(listed) == []
    assert listed.report is not None
    assert any("CUDA 11.8 toolkit" in note for note in listed.report.notes)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("nvcc fatal   : Unsupported gpu architecture 'compute_30'", "nvcc-arch-removed"),
        (
            "nvcc fatal   : Value 'sm_20' is not defined for option 'gpu-architecture'",
            "nvcc-arch-removed",
        ),
        ("nvcc fatal   : Unsupported gpu architecture 'compute_86'", "nvcc-gpu-arch"),
        (
            "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'",
            "nvcc-gpu-arch",
        ),
        # near miss: ptxas's own option stays the ptxas rule
        (
            "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'",
            "ptxas-unknown-arch",
        ),
    ],
)
def test_nvcc_architecture_refusals_by_family(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    findings = findings_of(read, matrix, line + "\n")
    named = {
        c
        for c in ("nvcc-arch-removed", "nvcc-gpu-arch", "ptxas-unknown-arch")
        if error_lines(findings, c)
    }
    assert named == {code}


@pytest.mark.parametrize(
    "text",
    [
        "ERROR: Could not find a version that satisfies the requirement torch==1.9.1+cu111 "
        "(from versions: 1.9.0, 1.9.1)\nERROR: No matching distribution found for "
        "torch==1.9.1+cu111\n",
        "LibMambaUnsatisfiableError: Encountered problems while solving:\n  - nothing provides "
        "cudatoolkit >=11.1,<11.2 needed by pytorch-1.10.0-py3.6_cuda11.1_cudnn8.0.5_0\n",
    ],
)
def test_what_a_manager_could_not_install_is_no_installed_version(read: Read, text: str) -> None:
    try:
        facts = read(text)
    except FactsError:
        return
    assert _torch(facts) is None


def test_a_resolver_conflicts_required_version_is_not_the_installed_one(read: Read) -> None:
    # pip's resolver names what a package requires, then what is installed ("but you have")
    facts = read(
        "ERROR: pip's dependency resolver does not currently take into account all the packages "
        "that are installed.\nxformers 0.0.22 requires torch==2.0.1, but you have torch 2.1.0 "
        "which is incompatible.\n"
    )
    assert _torch(facts) != "2.0.1"


def test_a_torch_build_tag_pip_could_not_find(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read, matrix, "ERROR: No matching distribution found for torch==1.9.1+cu111\n"
    )
    assert error_lines(findings, "torch-tagged-build-not-on-index")
    # near miss: a release without a build tag is another cause
    plain = (
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.0 "
        "(from versions: none)\n"
    )
    assert not error_lines(findings_of(read, matrix, plain), "torch-tagged-build-not-on-index")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("After installing the wheel `torch.cuda.is_available()` returns False.", False),
        ("torch.cuda.is_available() -> True, but nothing runs on the GPU", True),
    ],
)
def test_what_torch_answered_told_in_prose(read: Read, line: str, said: bool) -> None:
    text = f"Jetson Nano, torch 1.11.0\n{line}\n"
    assert read(text).report is not None
    assert _cuda_available(read(text)) is said


def _cuda_available(facts: HostFacts) -> bool | None:
    return next((f.cuda_available for f in facts.deep if f.name == "torch"), None)


@pytest.mark.parametrize(
    "line",
    [
        "if torch.cuda.is_available() == False: print('cpu')",
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'",
    ],
)
def test_a_programs_own_test_of_cuda_is_no_answer(read: Read, line: str) -> None:
    assert _cuda_available(read(f"torch 2.1.0\n{line}\n")) is None


def test_ubuntus_major_alone_and_wsls_library_folder(read: Read) -> None:
    facts = read("Ubuntu 22 with an RTX 3060\n")
    assert (facts.platform.os_id, facts.platform.os_version) == ("ubuntu", "22")
    # near miss: a number of cores or gigabytes is no release
    near = read("ubuntu 16 cores, RTX 3060\n")
    assert near.platform.os_id is None
    wsl = read("    Directory: C:\\Windows\\System32\\lxss\\lib\nlibcuda.so.1  RTX 3060\n")
    assert wsl.platform.wsl


def test_condas_virtual_packages(read: Read) -> None:
    facts = read(
        "     virtual packages : __archspec=1=x86_64\n"
        "                        __cuda=12.2=0\n"
        "                        __glibc=2.35=0\n"
    )
    assert facts.nvml.cuda_driver_version == "12.2"
    assert facts.platform.machine == "x86_64"
    # near miss: what a package needs of __cuda is no driver's CUDA; a micro-architecture is
    # no machine name
    near = read(
        "     virtual packages : __archspec=1=skylake\n"
        "  - nothing provides __cuda >=11.8 needed by pytorch-cuda-11.8-h7e8668a_5\n"
        "torch 2.1.0\n"
    )
    assert near.nvml.cuda_driver_version is None
    assert near.platform.machine is None


@pytest.mark.parametrize(
    "line",
    [
        "docker run --gpus all -it nvcr.io/nvidia/pytorch:24.01-py3",
        "    image: nvcr.io/nvidia/pytorch:24.01-py3",
        '            "nvcr.io/nvidia/pytorch:24.01-py3"',
    ],
)
def test_an_ngc_image_is_read_and_its_tag_is_no_torch_version(read: Read, line: str) -> None:
    facts = read(line + "\n")
    assert facts.report is not None
    assert "nvcr.io/nvidia/pytorch:24.01-py3" in facts.report.images
    # 24.01 is the container release, not torch's version
    assert [f.name for f in facts.frameworks] == []
    # near miss: the official PyTorch image's tag is torch's own version
    official = read("docker run --gpus all pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n")
    assert [(f.name, f.version) for f in official.frameworks] == [("torch", "2.1.0")]
