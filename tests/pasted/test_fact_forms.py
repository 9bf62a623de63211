"""Facts as people write them, one line alone: in prose, as a markdown list or table row, and as
the tools print them (nvidia-smi, nvcc, kubectl, containerd, crictl, dpkg, lscpu, jetson_release,
nvidia-container-cli); and the near misses that must give no fact."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]


def _notes(facts: HostFacts) -> tuple[str, ...]:
    assert facts.report is not None
    return facts.report.notes


@pytest.mark.parametrize(
    ("line", "cuda"),
    [
        ("CUDA Version: `12.4`", "12.4"),
        ("CUDA version: v12.2", "12.2"),
        ("**CUDA Version:** 12.6", "12.6"),
        ("| CUDA Version | 11.8 |", "11.8"),  # a markdown table's row is "label: value"
    ],
)
def test_the_drivers_cuda_in_the_forms_a_list_writes(read: Read, line: str, cuda: str) -> None:
    assert read(line + "\n").nvml.cuda_driver_version == cuda


@pytest.mark.parametrize(
    "line",
    ["cuda version 12.2", "CUDA Version 12.4", "my CUDA version is 12.3", "| CUDA | 12.1 |"],
)
def test_a_cuda_version_without_nvidia_smis_colon_is_named_not_the_drivers(
    read: Read, line: str
) -> None:
    facts = read(line + "\n")
    assert facts.nvml.cuda_driver_version is None
    assert facts.cuda_libs.toolkits == ()
    assert any("without saying whose" in n for n in _notes(facts))


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("cuda-toolkit 12.4", "12.4"),
        ("- cuda-toolkit: 12.4", "12.4"),
        ("CUDA Toolkit 12.1", "12.1"),
        ("CUDA toolkit version: 12.1", "12.1"),
    ],
)
def test_the_cuda_toolkit_listed_by_its_own_name(read: Read, line: str, version: str) -> None:
    facts = read(line + "\n")
    assert [t.version for t in facts.cuda_libs.toolkits] == [version]
    assert facts.nvml.cuda_driver_version is None


def test_the_toolkit_named_in_a_sentence_stays_a_cuda_of_unsaid_owner(read: Read) -> None:
    facts = read("I installed CUDA Toolkit 12.4 and it fails\n")
    assert facts.cuda_libs.toolkits == ()
    assert any("CUDA 12.4 is named, without saying whose" in n for n in _notes(facts))


@pytest.mark.parametrize(
    ("line", "version"), [("cudatoolkit 11.3", "11.3"), ("- cudatoolkit: 11.7", "11.7")]
)
def test_condas_cudatoolkit_is_that_environments_runtime(
    read: Read, line: str, version: str
) -> None:
    facts = read(line + "\n")
    assert facts.cuda_libs.toolkits == ()  # not a toolkit installed on the host
    assert f"conda's cudatoolkit {version} is the CUDA runtime of that environment" in _notes(facts)


@pytest.mark.parametrize(
    ("line", "branch"),
    [
        ("driver version 535", "535"),
        ("Driver: 535", "535"),
        ("- NVIDIA driver: 550", "550"),
        ("driver 570 on Ubuntu 24.04", "570"),
    ],
)
def test_a_driver_branch_alone_is_a_note_never_a_version(
    read: Read, line: str, branch: str
) -> None:
    facts = read(line + "\n")
    assert facts.nvml.driver_version is None  # the checks compare full versions
    assert f"the NVIDIA driver of branch {branch} is named" in _notes(facts)


@pytest.mark.parametrize(
    ("line", "version"),
    [("driver_version = 535.104.05", "535.104.05"), ("| Driver | 550.54.15 |", "550.54.15")],
)
def test_a_driver_version_as_a_key_or_table_row(read: Read, line: str, version: str) -> None:
    assert read(line + "\n").nvml.driver_version == version


@pytest.mark.parametrize(
    ("line", "machine"),
    [
        ("uname -m: aarch64", "aarch64"),
        ("arch: arm64", "aarch64"),
        ("Platform: aarch64", "aarch64"),
        ("- Architecture: arm64", "aarch64"),
        ("| Architecture | aarch64 |", "aarch64"),
        ("CPU architecture: ARM64", "aarch64"),
        (" - Machine: aarch64", "aarch64"),  # jetson_release
        ("build platform: x86_64", "x86_64"),  # nvidia-container-cli --version
        ("Architecture: amd64", "x86_64"),
        ("sbsa", "aarch64"),
        ("https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/sbsa/", "aarch64"),
        ("Grace Hopper", "aarch64"),
        ("NVIDIA Grace CPU", "aarch64"),
    ],
)
def test_the_machine_stated(read: Read, line: str, machine: str) -> None:
    assert read(line + "\n").platform.machine == machine


def test_the_kernel_modules_machine(read: Read) -> None:
    line = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.15  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:11:30 UTC 2024\n"
    )
    facts = read(line)
    assert facts.platform.machine == "aarch64"
    assert facts.kernel.nvidia_module_version == "550.54.15"


def test_a_machine_stated_wins_over_a_server_arm_word(read: Read) -> None:
    facts = read("Architecture: x86_64\nthe sbsa build of CUDA\n")
    assert facts.platform.machine == "x86_64"


@pytest.mark.parametrize(
    "line",
    [
        "platform: linux/arm64",  # a Compose file's image platform, not the host's
        "linux/arm64",
        "sbsa_driver.c: In function 'probe'",
        "Architecture: 8.0",  # nvidia-container-cli info: the compute capability
        "Product Architecture                  : Hopper",
    ],
)
def test_no_machine_from_a_near_miss(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert facts.platform.machine is None


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("Docker 24.0.7", "24.0.7"),
        ("- Docker: 24.0.7", "24.0.7"),
        ("| Docker | 26.1.3 |", "26.1.3"),
        (
            "ii  docker-ce   5:24.0.7-1~ubuntu.22.04~jammy   amd64   Docker: the open-source "
            "application container engine",
            "24.0.7",
        ),
    ],
)
def test_dockers_version(read: Read, line: str, version: str) -> None:
    assert read(line + "\n").container_runtime.docker_version == version


@pytest.mark.parametrize(
    ("line", "note"),
    [
        ("containerd 1.7.2", "containerd 1.7.2 is named"),
        (
            "containerd github.com/containerd/containerd v1.7.2 "
            "0cae528dd6cb557f7201036e9f43420650207b58",
            "containerd 1.7.2 is named",
        ),
        (
            "containerd containerd.io 1.6.21 3dce8eb055cbb6872793272b4f20ed16117344f8",
            "containerd 1.6.21 is named",
        ),
        (
            "ii  containerd.io   1.6.26-1   amd64   An open and reliable container runtime",
            "containerd 1.6.26 is named",
        ),
        ("runc version 1.1.7", "runc 1.1.7 is named"),
        ("podman version 4.9.3", "Podman 4.9.3 is named"),
    ],
)
def test_a_container_engines_version(read: Read, line: str, note: str) -> None:
    facts = read(line + "\n")
    assert note in _notes(facts)
    assert facts.platform.kubernetes is None  # Docker runs on containerd too


@pytest.mark.parametrize(
    ("line", "distribution"),
    [
        ("Client Version: v1.28.2", None),
        ("Server Version: v1.28.5+k3s1", "k3s"),
        ("RuntimeName:  containerd", None),  # crictl version
        ("crio version 1.28.1", None),
    ],
)
def test_kubernetes_from_its_tools_versions(
    read: Read, line: str, distribution: str | None
) -> None:
    facts = read(line + "\n")
    assert facts.platform.kubernetes is True
    assert facts.platform.k8s_distribution == distribution


def test_dockers_server_version_is_not_kubernetes(read: Read) -> None:
    facts = read(" Server Version: 24.0.7\n")
    assert facts.container_runtime.docker_version == "24.0.7"
    assert facts.platform.kubernetes is None


def test_the_toolkit_cli_version(read: Read) -> None:
    assert read("nvidia-ctk version 1.13.5\n").container_runtime.toolkit_version == "1.13.5"


@pytest.mark.parametrize(
    "line",
    [
        "nvidia.com/mig-1g.10gb: 7",
        "mig.strategy=mixed",
        "MIG enabled on the A100",
    ],
)
def test_mig_words(read: Read, line: str) -> None:
    assert any("mentions MIG" in n for n in _notes(read(line + "\n")))


def test_nccls_debian_package_gives_its_version_and_cuda(read: Read) -> None:
    line = (
        "ii  libnccl2   2.18.5-1+cuda12.2   amd64   NVIDIA Collective Communication Library "
        "(NCCL) Runtime\n"
    )
    nccl = read(line).cuda_libs.nccl
    assert [n.version for n in nccl] == ["2.18.5+cuda12.2"]


def test_a_conda_cudnn_of_the_defaults_channel(read: Read) -> None:
    facts = read("cudnn                     8.2.1                cuda11.3_0\n")
    assert "cuDNN 8.2.1 is installed by conda" in _notes(facts)


@pytest.mark.parametrize(
    "line",
    [
        "the driver crashed 300 times",
        "driver 450 ms latency",
        "Driver: 512 MB",
        "docker-compose 2.20.2",
        "nvidia-docker 2.13.0",
        "image: docker:24.0.7-dind",  # an image's tag
        "cuda_version = 12.0",
        "ENV CUDA_VERSION 12.4.1",
        "CUDA_VISIBLE_DEVICES=0",
        "12.2 GB",
        "| Name | Value |",
        "|---|---|",
    ],
)
def test_near_misses_give_no_version(read: Read, line: str) -> None:
    try:
        facts = read(line + "\n")
    except FactsError:
        return
    assert facts.nvml.driver_version is None
    assert facts.nvml.cuda_driver_version is None
    assert facts.container_runtime.docker_version is None
    assert not any("branch" in n or "is named" in n for n in _notes(facts))
