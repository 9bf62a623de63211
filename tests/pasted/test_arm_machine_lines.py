"""Lines that tell the machine of an Arm host: tegrastats, the Jetson's load monitor, pasted alone
is read (a Jetson, so aarch64) while prose that only names its GR3D_FREQ field is not; `uname -m`
with the answer on the next line gives the machine, a `uname -m` whose output is missing none,
and so does Docker's platform warning (the host's platform, not the image's); nvidia-smi missing
is expected on a Jetson of L4T R35 or older."""

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


def _smi_missing(read: Read, matrix: Matrix, before: str) -> Severity:
    text = before + "$ nvidia-smi\nbash: nvidia-smi: command not found\n"
    findings = run_checks(read(text), matrix).findings
    (found,) = [
        f for f in findings if f.code == "report-error" and f.subject == "nvidia-smi-not-found"
    ]
    return found.severity


def test_no_nvidia_smi_is_expected_on_an_older_jetson(read: Read, matrix: Matrix) -> None:
    # L4T R32/R35 (JetPack 4/5) have no NVML, so no nvidia-smi
    jetson = "# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, EABI: aarch64\n"
    assert _smi_missing(read, matrix, jetson) is Severity.INFO


def test_no_nvidia_smi_stays_an_error_elsewhere(read: Read, matrix: Matrix) -> None:
    # an x86 host, and a JetPack 6 Jetson (L4T R36 ships nvidia-smi)
    assert _smi_missing(read, matrix, "Architecture:        x86_64\n") is Severity.ERROR
    jetson6 = "# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic, EABI: aarch64\n"
    assert _smi_missing(read, matrix, jetson6) is Severity.ERROR


def test_dockers_platform_warning_names_the_host_not_the_image(read: Read) -> None:
    warning = (
        "WARNING: The requested image's platform ({image}) does not match the detected host "
        "platform ({host}) and no specific platform was requested\n"
        "exec /usr/bin/python3: exec format error\n"
    )
    facts = read(warning.format(image="linux/amd64", host="linux/arm64/v8"))
    assert facts.platform.machine == "aarch64"
    facts = read(warning.format(image="linux/arm64/v8", host="linux/amd64"))
    assert facts.platform.machine == "x86_64"
