"""Driver-layer lines of a desktop or a Windows machine: RPM Fusion's fallback to nouveau, the
NVIDIA user-space driver's missing /dev/nvidiactl, nvidia-settings' two errors without a driver,
Device Manager's Code 43 (its fix for a VM where the report shows one)."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, named_lines


@pytest.mark.parametrize(
    ("line", "code", "said"),
    [
        (
            "NVIDIA kernel module missing. Falling back to nouveau",
            "nvidia-fallback-to-nouveau",
            "akmods",
        ),
        (
            "NVIDIA: could not open the device file /dev/nvidiactl (No such file or directory).",
            "nvidiactl-missing",
            "/dev/nvidiactl (No such file or directory)",
        ),
        (
            "NVIDIA: could not open the device file /dev/nvidia0 (No such device).",
            "nvidiactl-missing",
            "/dev/nvidia0",
        ),
        ("ERROR: NVIDIA driver is not loaded", "nvidia-settings-driver-not-loaded", "NVML"),
        (
            "nvidia-settings: ERROR: Unable to load info from any available system",
            "nvidia-settings-no-system",
            "NV-CONTROL",
        ),
        (
            "Windows has stopped this device because it has reported problems. (Code 43)",
            "windows-device-code-43",
            "CM_PROB_FAILED_POST_START",
        ),
    ],
)
def test_a_driver_line_is_named(
    read: Read, matrix: Matrix, line: str, code: str, said: str
) -> None:
    (shown,) = named_lines(read, matrix, line + "\n", code)
    assert shown.severity == Severity.ERROR
    assert said in (shown.detail or "")


@pytest.mark.parametrize(
    "text",
    [
        # prose about nouveau, not the fallback service's message
        "I am falling back to nouveau because the nvidia module is missing\n",
        # another device file, another program's wording
        "cannot open /dev/nvidiactl: permission denied\n",
        # a device node the user may not open: permissions, not a missing module
        "NVIDIA: could not open the device file /dev/nvidiactl (Operation not permitted).\n",
        # NVML's own wording is nvml-driver-not-loaded's, not nvidia-settings'
        "Failed to initialize NVML: Driver Not Loaded\n",
        # a Code 43 without Device Manager's sentence (a USB device's forum title)
        "USB device error code 43 after the update\n",
    ],
)
def test_near_misses_are_not_these_lines(read: Read, matrix: Matrix, text: str) -> None:
    codes = (
        "nvidia-fallback-to-nouveau",
        "nvidiactl-missing",
        "nvidia-settings-driver-not-loaded",
        "nvidia-settings-no-system",
        "windows-device-code-43",
    )
    try:
        shown = findings_of(read, matrix, text)
    except FactsError:
        return  # not read at all: certainly not one of them
    named = [
        f
        for f in shown
        if f.code == "report-error" and any(("error", c) in f.evidence for c in codes)
    ]
    assert named == []


def test_nvidia_settings_no_system_is_the_symptom_of_no_driver(read: Read, matrix: Matrix) -> None:
    text = (
        "ERROR: NVIDIA driver is not loaded\nERROR: Unable to load info from any available system\n"
    )
    (symptom,) = named_lines(read, matrix, text, "nvidia-settings-no-system")
    (cause,) = named_lines(read, matrix, text, "nvidia-settings-driver-not-loaded")
    assert cause.severity == Severity.ERROR
    assert symptom.severity == Severity.INFO


_CODE_43 = "Windows has stopped this device because it has reported problems. (Code 43)\n"


def test_code_43_in_a_vm_the_report_shows_is_the_guests_driver(read: Read, matrix: Matrix) -> None:
    text = " Static hostname: win-guest\n  Virtualization: kvm\n" + _CODE_43
    (shown,) = named_lines(read, matrix, text, "windows-device-code-43")
    assert "virtual machine (kvm)" in (shown.detail or "")
    assert "R465 or newer in the guest" in shown.fix


def test_code_43_on_bare_metal_keeps_the_general_fix(read: Read, matrix: Matrix) -> None:
    text = " Static hostname: desk\n  Virtualization: none\n" + _CODE_43
    (shown,) = named_lines(read, matrix, text, "windows-device-code-43")
    assert "virtual machine (" not in (shown.detail or "")
    assert shown.fix.startswith("uninstall the device")
