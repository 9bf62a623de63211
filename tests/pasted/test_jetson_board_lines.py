"""What a Jetson prints about itself, read as a Jetson (aarch64): its device tree's model and
compatible string, a listing of L4T's device nodes, and the GPU name CUDA gives it
(deviceQuery's "NVIDIA Tegra X1"); `dpkg --print-architecture` and `arch` with their answer give
the machine; pip's "Successfully installed ... torch-2.3.1" gives the framework it installed.
Near misses (a device node quoted in an error, prose naming the board) are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import no_fact_read

Read = Callable[[str], HostFacts]


def _jetson(facts: HostFacts) -> bool:
    return facts.report is not None and "jetson" in facts.report.named


@pytest.mark.parametrize(
    "text",
    [
        "$ cat /proc/device-tree/model\nNVIDIA Jetson Orin Nano Developer Kit\n",
        # the file ends without a newline: the next prompt follows on its line
        "cat /proc/device-tree/model\nNVIDIA Jetson Nano Developer Kitjetson@nano:~$ \n",
        "$ cat /sys/firmware/devicetree/base/model\nNVIDIA Jetson AGX Xavier\n",
    ],
)
def test_the_device_tree_model_is_a_jetson(read: Read, text: str) -> None:
    facts = read(text + "torch 2.1.0\n")
    assert facts.platform.machine == "aarch64"
    assert _jetson(facts)


@pytest.mark.parametrize(
    "text",
    [
        "nvidia,p3768-0000+p3767-0005nvidia,p3767-0005nvidia,tegra234\n",
        # glued to the next prompt, as the NUL-separated file prints
        "nvidia,p3509-0000+p3767-0000nvidia,p3767-0000nvidia,tegra234user@orin:~$\n",
        "nvidia,p3449-0000-b00+p3448-0002nvidia,jetson-nanonvidia,tegra210\n",
    ],
)
def test_the_device_tree_compatible_string_is_a_jetson(read: Read, text: str) -> None:
    facts = read(text)
    assert facts.platform.machine == "aarch64"
    assert _jetson(facts)


@pytest.mark.parametrize(
    "text",
    [
        "/dev/nvgpu          /dev/nvhost-ctrl-nvdla0  /dev/nvhost-ctxsw-gpu  /dev/nvmap\n",
        "/dev/nvhost-as-gpu  /dev/nvhost-ctrl  /dev/nvhost-gpu\n",
        "crw-rw-rw- 1 root root 10, 62 Jan 28  2018 /dev/nvmap\n",
    ],
)
def test_a_listing_of_l4t_device_nodes_is_a_jetson(read: Read, text: str) -> None:
    facts = read(text)
    assert facts.platform.machine == "aarch64"
    assert _jetson(facts)


def test_a_device_node_quoted_in_an_error_is_no_jetson(read: Read) -> None:
    facts = read(
        'Error: failed to create device "/dev/nvhost-ctrl": no such file or directory\n'
        "torch 2.1.0\n"
    )
    assert facts.platform.machine is None
    assert not _jetson(facts)
    # nor a 32-bit Tegra's compatible string (Jetson TK1, armv7l)
    assert no_fact_read(read, "nvidia,jetson-tk1nvidia,tegra124\n")


def test_a_model_line_without_the_device_tree_is_not_read_as_one(read: Read) -> None:
    # prose opening with the board's name may be written on the host that flashes it
    facts = read("NVIDIA Jetson Orin Nano Developer Kit, flashed from my PC\ntorch 2.1.0\n")
    assert facts.platform.machine is None


@pytest.mark.parametrize(
    ("text", "machine"),
    [
        ("$ dpkg --print-architecture\narm64\n", "aarch64"),
        ("$ dpkg --print-architecture\namd64\n", "x86_64"),
        ("$ arch\naarch64\n", "aarch64"),
        # the command's output missing: the next prompt follows
        ("$ dpkg --print-architecture\n$ pip list\n", None),
    ],
)
def test_the_architecture_commands_and_their_answer(
    read: Read, text: str, machine: str | None
) -> None:
    assert read(text + "torch 2.1.0\n").platform.machine == machine


@pytest.mark.parametrize("name", ["NVIDIA Tegra X1", "NVIDIA Tegra X2"])
def test_device_query_on_a_jetson_is_an_aarch64_jetson(read: Read, name: str) -> None:
    text = (
        "Detected 1 CUDA Capable device(s)\n\n"
        f'Device 0: "{name}"\n'
        "  CUDA Driver Version / Runtime Version          10.2 / 10.2\n"
        "  CUDA Capability Major/Minor version number:    5.3\n"
        "  Integrated GPU sharing Host Memory:            Yes\n"
    )
    facts = read(text)
    assert [g.name for g in facts.nvml.gpus] == [name]
    assert facts.platform.machine == "aarch64"


def test_pips_successfully_installed_line_gives_the_framework(read: Read, matrix: Matrix) -> None:
    text = (
        "Jetson Orin Nano, JetPack 6.0\n"
        "Successfully installed filelock-3.13.1 torch-2.3.1 typing-extensions-4.9.0\n"
    )
    facts = read(text)
    assert [(f.name, f.version) for f in facts.frameworks] == [("torch", "2.3.1")]
    # PyPI's aarch64 torch 2.3.1 carries no CUDA: on a Jetson it runs on the CPU
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "jetson-wheel"]
    assert found.severity is Severity.WARN


def test_a_companion_or_an_uninstall_is_no_installed_framework(read: Read) -> None:
    facts = read("Successfully installed torchvision-0.18.1\nCUDA 12.2\n")
    assert facts.frameworks == ()
    facts = read("Successfully uninstalled torch-2.3.1\nCUDA 12.2\n")
    assert facts.frameworks == ()
