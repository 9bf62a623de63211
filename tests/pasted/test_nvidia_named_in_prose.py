"""Prose that names the NVIDIA driver or an NVIDIA GPU without a version or model: read as the
words it names (pasted/words.py), with a request for nvidia-smi, never a finding; another
vendor's or program's "driver" stays unread."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.words import NAME
from tests.support.pasted_findings import Read, findings_of, warn_or_error


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("You are not currently using a display attached to an NVIDIA GPU.\n", "an NVIDIA GPU"),
        (
            "After the update my nvidia driver stopped working, the gpu does not show up in "
            "nvidia-settings.\n",
            "the NVIDIA driver",
        ),
        (
            "NVIDIA Installer cannot continue\nThis graphics driver could not find compatible "
            "graphics hardware.\n",
            "the NVIDIA driver",
        ),
        (
            "The system cannot find the NVIDIA graphics driver. Install the driver and try again\n",
            "the NVIDIA driver",
        ),
        # the driver named by the tools only its packages install, by its kernel module and
        # DKMS's build of it, and as "the GPU driver" on a line about CUDA
        (
            "nvidia-smi hangs forever and never returns.\nHow can I debug this?\n",
            "the NVIDIA driver",
        ),
        (
            "The driver is installed but nvidia-smi says no devices found.\nlspci shows it.\n",
            "the NVIDIA driver",
        ),
        ("After the kernel update the nvidia kernel module is gone.\n", "the NVIDIA driver"),
        ("dkms status shows nothing for nvidia.\napt says it is installed.\n", "the NVIDIA driver"),
        (
            "Your GPU driver does not support the requested CUDA version. Please update it.\n",
            "the NVIDIA driver",
        ),
    ],
)
def test_the_nvidia_driver_or_gpu_named_in_prose_is_read_as_words(
    read: Read, matrix: Matrix, text: str, said: str
) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    note = next(n for n in facts.report.notes if n.startswith("the paste names"))
    assert said in note
    assert "nvidia-smi" in note
    assert facts.nvml.driver_version is None
    assert not facts.nvml.gpus
    assert warn_or_error(findings_of(read, matrix, text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "I updated the printer driver and it prints again.\n",
        "The database driver times out on connect.\n",
        "The device driver of the network card was reinstalled.\n",
        # a GPU driver with no word of CUDA or NVIDIA may be any vendor's
        "Your GPU driver is out of date. Please update your graphics driver.\n",
        "The display driver crashed and recovered.\n",
        # DKMS building another vendor's module
        "dkms status shows nothing for amdgpu.\n",
    ],
)
def test_another_driver_named_in_prose_stays_unread(read: Read, text: str) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read(text)


def test_a_line_that_says_the_machine_has_a_gpu_is_not_named_twice(read: Read) -> None:
    facts = read("I have an NVIDIA GPU in this box.\n")
    assert facts.report is not None
    note = next(n for n in facts.report.notes if n.startswith("the paste names"))
    assert "a machine with a GPU" in note
    assert "an NVIDIA GPU" not in note
