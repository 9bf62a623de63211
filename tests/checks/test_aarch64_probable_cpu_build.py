"""A pasted report from an aarch64 host whose torch build it does not show: a Grace superchip's
GPU names the machine, pip's wheel file names give the release and the machine, and a release
whose PyPI aarch64 wheel is CPU-only is a warning (probably PyPI's build); a tagged CUDA build,
a Jetson's wheel or an x86_64 host is not."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_FREEZE = "$ pip freeze\nfilelock==3.16.1\nnumpy==2.1.3\ntorch=={torch}\nsympy==1.13.1\n"


def _read(text: str, matrix: Matrix) -> HostFacts:
    return read_report(text, "paste.txt", matrix.architectures)


def _cpu_only(text: str, matrix: Matrix) -> Finding:
    findings = run_checks(_read(text, matrix), matrix).findings
    (found,) = [f for f in findings if f.code == "framework-cpu-only"]
    return found


def test_grace_gpu_names_the_machine(matrix: Matrix) -> None:
    facts = _read("GPU 0: NVIDIA GH200 480GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d)\n", matrix)
    assert facts.platform.machine == "aarch64"
    # an H200 is a PCIe/SXM GPU of x86 and Arm servers alike: it says nothing of the machine
    facts = _read("GPU 0: NVIDIA H200 (UUID: GPU-5d5ba0d6-d33d-2b2c-524d)\n", matrix)
    assert facts.platform.machine is None


def test_what_the_report_states_beats_the_gpu_name(matrix: Matrix) -> None:
    text = "GPU 0: NVIDIA GB200 (UUID: GPU-1)\nArchitecture:                       x86_64\n"
    assert _read(text, matrix).platform.machine == "x86_64"


def test_pip_wheel_file_names_give_release_and_machine(matrix: Matrix) -> None:
    text = (
        "Collecting torch\n"
        "  Downloading torch-2.4.0-cp310-cp310-manylinux2014_aarch64.whl (89.8 MB)\n"
        "Collecting torchvision\n"
        "  Downloading torchvision-0.19.0-cp310-cp310-manylinux2014_aarch64.whl (14.1 MB)\n"
    )
    facts = _read(text, matrix)
    assert [f.version for f in facts.frameworks if f.name == "torch"] == ["2.4.0"]
    assert facts.platform.machine == "aarch64"
    # the local tag of a download.pytorch.org wheel, written %2B in its URL, is kept
    url = "  Downloading https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl\n"
    facts = _read(url, matrix)
    assert [f.version for f in facts.frameworks if f.name == "torch"] == ["2.5.1+cu124"]
    assert facts.platform.machine == "x86_64"


def test_a_wheel_pip_refuses_is_not_this_machines(matrix: Matrix) -> None:
    text = (
        "ERROR: torch-2.1.0-cp38-cp38-linux_aarch64.whl is not a supported wheel on this "
        "platform.\nArchitecture:        x86_64\n"
    )
    facts = _read(text, matrix)
    assert facts.platform.machine == "x86_64"
    assert not [f for f in facts.frameworks if f.name == "torch"]


def test_a_compound_platform_tag_is_read(matrix: Matrix) -> None:
    line = (
        "  Downloading tensorflow-2.15.0-cp311-cp311-manylinux_2_17_aarch64.manylinux2014_"
        "aarch64.whl (212.3 MB)\n"
    )
    facts = _read(line, matrix)
    assert [f.version for f in facts.frameworks if f.name == "tensorflow"] == ["2.15.0"]
    assert facts.platform.machine == "aarch64"


def test_untagged_torch_on_a_grace_host_is_probably_pypis_cpu_build(matrix: Matrix) -> None:
    text = "I have an ARM CPU and a NVIDIA GH200 Driver Version: 550.90.07 CUDA Version: 12.4.\n"
    found = _cpu_only(text + _FREEZE.format(torch="2.5.1"), matrix)
    assert found.severity is Severity.WARN
    assert found.detail
    assert "PyPI's aarch64 wheel of torch 2.5.1 carries no CUDA" in found.detail
    assert "torch.version.cuda" in found.detail
    assert found.fix
    assert "download.pytorch.org" in found.fix


def test_a_tagged_cuda_build_is_not_suspected(matrix: Matrix) -> None:
    text = "GPU 0: NVIDIA GH200 480GB (UUID: GPU-1)\n" + _FREEZE.format(torch="2.5.1+cu124")
    assert _cpu_only(text, matrix).severity is Severity.OK


def test_a_release_with_cuda_on_pypi_aarch64_is_not_suspected(matrix: Matrix) -> None:
    text = "GPU 0: NVIDIA GH200 480GB (UUID: GPU-1)\n" + _FREEZE.format(torch="2.11.0")
    assert _cpu_only(text, matrix).severity is Severity.UNKNOWN


def test_a_jetson_wheel_without_a_tag_is_not_suspected(matrix: Matrix) -> None:
    # Jetson indexes publish CUDA builds without a local tag; the Jetson checks judge them
    text = (
        "# R36 (release), REVISION: 4.0, GCID: 37537400, BOARD: generic, EABI: aarch64\n"
        + _FREEZE.format(torch="2.5.0")
    )
    assert _cpu_only(text, matrix).severity is Severity.UNKNOWN


def test_an_x86_host_is_not_suspected(matrix: Matrix) -> None:
    text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nArchitecture: x86_64\n"
    assert _cpu_only(text + _FREEZE.format(torch="2.5.1"), matrix).severity is Severity.UNKNOWN
