"""aarch64 pastes as users post them: an L4T container started on its own line is a Jetson
(arm64) report; a `pip install` of a wheel file names a file, not the machine pip runs on."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def test_an_l4t_image_run_alone_is_a_jetson_report(read: Read) -> None:
    facts = read(
        "$ sudo docker run -it --rm --runtime nvidia --network host "
        "nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n"
    )
    assert facts.platform.machine == "aarch64"
    assert facts.report is not None
    assert "nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3" in facts.report.images
    assert "jetson" in facts.report.named


def test_an_l4t_image_in_a_dockerfile_is_read_but_says_nothing_of_the_machine(
    read: Read,
) -> None:
    # a Dockerfile may be built on an x86 host under emulation: only the image is read
    facts = read("FROM dustynv/l4t-ml:r36.2.0\n")
    assert facts.report is not None
    assert "dustynv/l4t-ml:r36.2.0" in facts.report.images
    assert facts.platform.machine is None


def test_a_refused_x86_wheel_on_arm_sets_no_machine_and_no_torch(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "$ pip3 install torch-2.1.0+cu121-cp310-cp310-linux_x86_64.whl\n"
        "ERROR: torch-2.1.0+cu121-cp310-cp310-linux_x86_64.whl is not a supported wheel on "
        "this platform.\n"
    )
    facts = read(text)
    assert facts.platform.machine is None  # the wheel's platform is the one pip refused
    assert not [f for f in facts.frameworks if f.name == "torch"]
    (line,) = error_lines(findings_of(read, matrix, text), "wheel-not-for-platform")
    assert "linux_x86_64.whl" in line.detail


def test_a_downloaded_wheel_still_names_the_machine(read: Read) -> None:
    # pip picks the wheel for the machine it runs on: near miss of the install command
    facts = read("  Downloading torch-2.4.0-cp310-cp310-manylinux2014_aarch64.whl (89.7 MB)\n")
    assert facts.platform.machine == "aarch64"


def test_benign_jetson_pastes_raise_no_warning(read: Read, matrix: Matrix) -> None:
    for text in (
        "$ cat /proc/device-tree/model\nNVIDIA Jetson Orin Nano Developer Kit\n",
        "Linux orin-nano 5.15.136-tegra #1 SMP PREEMPT Mon May  6 09:56:39 PDT 2024 aarch64 "
        "aarch64 aarch64 GNU/Linux\n",
        "RAM 2448/7620MB (lfb 1063x4MB) SWAP 0/3810MB (cached 0MB) CPU [2%@1190,1%@1190,"
        "0%@1190,0%@1190,off,off] EMC_FREQ 0% GR3D_FREQ 0% cpu@46.5C gpu@45.5C "
        "VDD_IN 4453mW/4453mW\n",
        "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, "
        "DATE: Tue Aug  1 19:57:35 UTC 2023\n",
    ):
        assert warn_or_error(findings_of(read, matrix, text)) == [], text


def test_a_missing_system_openblas_is_named_with_its_library(read: Read, matrix: Matrix) -> None:
    text = (
        "$ python3 -c 'import torch'\n"
        "ImportError: libopenblas.so.0: cannot open shared object file: No such file or directory\n"
    )
    (line,) = error_lines(findings_of(read, matrix, text), "openblas-system-library-missing")
    assert line.severity == Severity.ERROR
    assert "libopenblas.so.0" in line.detail
    assert "libopenblas-dev" in (line.fix or "")


def test_a_missing_system_openmpi_is_named_with_its_soname(read: Read, matrix: Matrix) -> None:
    text = (
        "ImportError: libmpi_cxx.so.40: cannot open shared object file: No such file or directory\n"
    )
    (line,) = error_lines(findings_of(read, matrix, text), "openmpi-system-library-missing")
    assert "libmpi_cxx.so.40, soname 40" in line.detail
    assert "libopenmpi-dev" in (line.fix or "")


def test_openblas_and_openmpi_near_misses_are_not_named(read: Read, matrix: Matrix) -> None:
    # a library that merely holds the name, and a load that worked
    for text in (
        "ImportError: libopenblasp-r0-2ecf47d5.3.13.so: cannot open shared object file: No such "
        "file or directory\n",
        "libmpi.so.40 => /usr/lib/aarch64-linux-gnu/libmpi.so.40 (0x0000ffff9a2c0000)\n",
    ):
        found = findings_of(read, matrix, text) if _readable(read, text) else []
        assert not error_lines(found, "openblas-system-library-missing"), text
        assert not error_lines(found, "openmpi-system-library-missing"), text


def _readable(read: Read, text: str) -> bool:
    try:
        read(text)
    except FactsError:
        return False
    return True


def test_apt_show_with_its_apt_source_keeps_the_jetpack_release_of_the_host(read: Read) -> None:
    # the apt branch r35.4 names L4T 35.4 (35.4.1 for JetPack 5.1.2), not a release 35.4.0
    facts = read(
        "Package: nvidia-jetpack\nVersion: 5.1.2-b104\nPriority: standard\n"
        "APT-Sources: https://repo.download.nvidia.com/jetson/common r35.4/main arm64 Packages\n"
        "Description: NVIDIA Jetpack Meta Package\n"
    )
    assert facts.platform.jetpack_release == "5.1.2"
    assert facts.platform.l4t_release != "35.4.0"


def test_a_jetson_apt_source_list_alone_is_a_jetson_of_unknown_release(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "deb https://repo.download.nvidia.com/jetson/common r32.7 main\n"
        "deb https://repo.download.nvidia.com/jetson/t210 r32.7 main\n"
    )
    facts = read(text)
    assert facts.platform.machine == "aarch64"
    assert facts.platform.l4t_release is None
    assert facts.report is not None
    assert "jetson" in facts.report.named
    assert warn_or_error(findings_of(read, matrix, text)) == []


def test_an_l4t_release_in_prose_is_still_read(read: Read) -> None:
    # near miss of the apt source: the same number written by a user about the host
    assert read("my Jetson Nano runs R32.7.1\n").platform.l4t_release == "32.7.1"


_SMI_FAILED = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


def test_nvidia_smi_without_a_driver_on_a_jetpack5_jetson_is_expected(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref, EABI: aarch64, "
        "DATE: Sun Mar 19 15:19:21 UTC 2023\n" + _SMI_FAILED
    )
    found = findings_of(read, matrix, text)
    (line,) = error_lines(found, "nvidia-smi-no-driver")
    assert line.severity == Severity.INFO
    assert "L4T 35.3.1" in line.detail
    assert warn_or_error(found) == []


def test_nvidia_smi_without_a_driver_stays_an_error_off_a_jetson_and_on_jetpack6(
    read: Read, matrix: Matrix
) -> None:
    for host in (
        "Linux gpu01 5.15.0-91-generic #101-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n",
        "# R36 (release), REVISION: 3.0, GCID: 36923193, BOARD: generic, EABI: aarch64, "
        "DATE: Fri Jul 19 23:24:25 UTC 2024\n",
    ):
        (line,) = error_lines(findings_of(read, matrix, host + _SMI_FAILED), "nvidia-smi-no-driver")
        assert line.severity == Severity.ERROR, host


def test_torch_cuda_driver_init_failure_is_named_not_a_harmless_warning(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "$ docker run -it --rm dustynv/l4t-pytorch:r36.2.0 python3 -c 'import torch'\n"
        "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:138: UserWarning: CUDA "
        "initialization: CUDA driver initialization failed, you might not have a CUDA gpu. "
        "(Triggered internally at /opt/pytorch/pytorch/c10/cuda/CUDAFunctions.cpp:108.)\n"
    )
    found = findings_of(read, matrix, text)
    (line,) = error_lines(found, "torch-cuda-init-failed")
    assert line.severity == Severity.ERROR
    assert "--runtime nvidia" in (line.fix or "")
    assert not error_lines(found, "python-warning")


def test_another_torch_cuda_warning_is_not_the_driver_init_failure(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found "
        "version 11040).\n"
    )
    assert not error_lines(findings_of(read, matrix, text), "torch-cuda-init-failed")


_SMI_Q = """==============NVSMI LOG==============

Timestamp                                 : Tue Mar  5 10:12:03 2024
Driver Version                            : 550.54.15
CUDA Version                              : 12.4

Attached GPUs                             : 1
GPU 00000009:01:00.0
    Product Name                          : NVIDIA GH200 480GB
    Product Brand                         : NVIDIA
    Product Architecture                  : Hopper
    Persistence Mode                      : Enabled
    Addressing Mode                       : {mode}
    MIG Mode
        Current                           : Disabled
        Pending                           : Disabled
"""


def test_nvidia_smi_q_addressing_mode_is_read(read: Read, matrix: Matrix) -> None:
    facts = read(_SMI_Q.format(mode="ATS"))
    assert [g.addressing_mode for g in facts.nvml.gpus] == ["ats"]
    found = findings_of(read, matrix, _SMI_Q.format(mode="ATS"))
    (cpu,) = [f for f in found if f.code == "cpu-memory"]
    assert "ATS addressing" in cpu.detail
    assert warn_or_error(found) == []


def test_nvidia_smi_q_addressing_mode_hmm_and_na(read: Read) -> None:
    assert [g.addressing_mode for g in read(_SMI_Q.format(mode="HMM")).nvml.gpus] == ["hmm"]
    assert [g.addressing_mode for g in read(_SMI_Q.format(mode="N/A")).nvml.gpus] == [None]
