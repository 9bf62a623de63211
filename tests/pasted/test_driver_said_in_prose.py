"""The driver as people name it in prose: its branch or version before the word "driver", its
.run installer by file name, and nouveau said to be loaded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]


def _notes(facts: HostFacts) -> list[str]:
    assert facts.report is not None
    return list(facts.report.notes)


@pytest.mark.parametrize(
    ("text", "branch"),
    [
        ("After upgrading to the 550 driver from 535, CUDA stopped working\n", "550"),
        ("R535 driver on Ubuntu\n", "535"),
        ("the 470 series nvidia driver\n", "470"),
    ],
)
def test_a_branch_before_the_word_driver_is_a_note(read: Read, text: str, branch: str) -> None:
    facts = read(text)
    assert facts.nvml.driver_version is None  # a branch is never a version
    assert any(branch in n and "branch" in n for n in _notes(facts))


def test_a_full_version_before_the_word_driver_is_the_driver(read: Read) -> None:
    assert read("installed the 550.54.15 drivers yesterday\n").nvml.driver_version == "550.54.15"


def test_a_gpu_models_number_before_driver_is_no_branch(read: Read) -> None:
    facts = read("my GTX 970 driver crashed\n")
    assert not any("branch" in n for n in _notes(facts))


def test_the_run_installer_named_is_a_note_not_the_running_driver(read: Read) -> None:
    facts = read("sudo sh NVIDIA-Linux-x86_64-550.54.15.run --silent\n")
    assert facts.nvml.driver_version is None
    assert any("550.54.15" in n and ".run" in n for n in _notes(facts))


@pytest.mark.parametrize(
    "text", ["nouveau is still loaded after blacklisting\n", "the nouveau driver is in use\n"]
)
def test_nouveau_said_to_be_loaded(read: Read, text: str) -> None:
    assert "nouveau" in read(text).kernel.modules_loaded


def test_nouveau_said_not_to_be_loaded_is_no_fact(read: Read) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read("nouveau is not loaded\n")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("nvidia/550.54.15: added", "550.54.15 as added, not installed"),
        (
            "nvidia/550.54.15, 6.5.0-27-generic, x86_64: built",
            "550.54.15 as built for kernel 6.5.0-27-generic, not installed",
        ),
    ],
)
def test_a_dkms_module_not_installed_is_a_note_not_the_driver(
    read: Read, line: str, said: str
) -> None:
    facts = read(line + "\n")
    assert facts.nvml.driver_version is None
    assert facts.kernel.nvidia_dkms_kernels is None
    assert any(said in n for n in _notes(facts))


def test_the_installer_logs_header_names_the_release_it_installs(read: Read) -> None:
    facts = read(
        "nvidia-installer log file '/var/log/nvidia-installer.log'\ninstaller version: 550.54.15\n"
    )
    assert facts.nvml.driver_version is None
    assert any("installing driver 550.54.15" in n for n in _notes(facts))


def test_a_dkms_status_kernel_is_not_the_running_kernel(read: Read) -> None:
    facts = read("nvidia/550.54.15, 6.5.0-27-generic, x86_64: installed\n")
    assert facts.kernel.nvidia_dkms_kernels == ("6.5.0-27-generic",)
    assert facts.kernel.release is None  # DKMS builds for kernels that may not be running
    uname = read("Linux gpu01 6.5.0-27-generic #28~22.04.1-Ubuntu SMP x86_64 GNU/Linux\n")
    assert uname.kernel.release == "6.5.0-27-generic"
