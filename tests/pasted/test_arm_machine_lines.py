"""Lines that tell the machine of an Arm host: tegrastats, the Jetson's load monitor, pasted alone
is read (a Jetson, so aarch64) while prose that only names its GR3D_FREQ field is not; `uname -m`
with the answer on the next line gives the machine, a `uname -m` whose output is missing none."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]

_LINE = (
    "RAM 2448/3956MB (lfb 4x4MB) SWAP 0/1978MB (cached 0MB) CPU [12%@1479,5%@1479,3%@1479,"
    "2%@1479] EMC_FREQ 0% GR3D_FREQ 0%@921 APE 25 PLL@36C CPU@38.5C PMIC@100C GPU@36.5C "
    "AO@44.5C thermal@37.5C POM_5V_IN 2335/2335 POM_5V_GPU 0/0 POM_5V_CPU 372/372\n"
)


def test_a_tegrastats_line_says_the_host_is_a_jetson(read: Read, matrix: Matrix) -> None:
    facts = read(_LINE)
    assert facts.platform.machine == "aarch64"
    assert facts.report is not None
    assert "jetson" in facts.report.named
    gpu = next(f for f in run_checks(facts, matrix).findings if f.code == "no-nvidia-gpu")
    # a Jetson's GPU is not on the PCI bus: that is no error
    assert gpu.severity is Severity.INFO


def test_prose_naming_the_field_is_not_a_tegrastats_line(read: Read) -> None:
    # nothing else in it either: not one fact, so not read
    with pytest.raises(FactsError, match="no report recognised"):
        read("GR3D_FREQ stays at 0% while the model runs, RAM is fine\n")


def test_uname_m_and_its_answer_give_the_machine(read: Read) -> None:
    text = "+ uname -m\naarch64\n+ pip3 freeze\ntorch==2.4.0\n"
    assert read(text).platform.machine == "aarch64"
    text = "user@gh200:~$ uname -m\narm64\nuser@gh200:~$ pip freeze\ntorch==2.4.0\n"
    assert read(text).platform.machine == "aarch64"


def test_uname_m_without_its_answer_is_no_machine(read: Read) -> None:
    # the next prompt follows: the output was not pasted
    text = "$ uname -m\n$ pip freeze\ntorch==2.4.0\n"
    assert read(text).platform.machine is None
