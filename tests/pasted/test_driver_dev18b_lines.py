"""Driver pastes of round 18's fourth set: systemctl's "Job for nvidia-fabricmanager.service
failed" (the unit that did not start, as `systemctl start` prints it), and flatpak's NVIDIA GL
runtimes beside the loaded driver (flatpak mounts only the runtime named after the module's
version, dots as dashes). Each is named or judged, and its near misses are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_codes, error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def test_systemctl_s_failed_job_of_the_fabric_manager_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        "Job for nvidia-fabricmanager.service failed because the control process exited with "
        "error code.\n"
    )
    assert error_codes(read, line) == ["fabric-manager-service-failed"]
    (found,) = error_lines(findings_of(read, matrix, line), "fabric-manager-service-failed")
    assert found.severity is Severity.ERROR


@pytest.mark.parametrize(
    "line",
    [
        # another unit's failed job; the fabric manager's unit started
        "Job for docker.service failed because the control process exited with error code.",
        "systemd[1]: Started nvidia-fabricmanager.service - NVIDIA fabric manager service.",
    ],
)
def test_other_units_and_a_started_fabric_manager_are_not_named(read: Read, line: str) -> None:
    assert "fabric-manager-service-failed" not in error_codes(read, line + "\n")


def _mismatch(read: Read, matrix: Matrix, text: str) -> list[tuple[Severity, str]]:
    return [
        (f.severity, f.title)
        for f in findings_of(read, matrix, text)
        if f.code == "driver-library-mismatch"
    ]


def test_flatpak_runtimes_of_other_releases_than_the_module_are_warned(
    read: Read, matrix: Matrix
) -> None:
    pasted = (
        "$ cat /sys/module/nvidia/version\n"
        "340.106\n"
        "$ flatpak remote-ls flathub | grep nvidia-340\n"
        "org.freedesktop.Platform.GL.nvidia-340-102\n"
        "org.freedesktop.Platform.GL32.nvidia-340-104\n"
    )
    facts = read(pasted)
    assert facts.report.flatpak_gl_nvidia == ("340-102", "340-104")
    ((severity, title),) = _mismatch(read, matrix, pasted)
    assert severity is Severity.WARN
    assert "340.106" in title
    assert "nvidia-340-104" in title
    (found,) = [f for f in findings_of(read, matrix, pasted) if f.code == "driver-library-mismatch"]
    assert "org.freedesktop.Platform.GL.nvidia-340-106" in found.fix


def test_the_module_version_quoted_on_one_line_is_read_and_a_short_runtime_name_warned(
    read: Read, matrix: Matrix
) -> None:
    # flatpak names the runtime by the full version: 396.24.02 needs nvidia-396-24-02
    pasted = (
        "`org.freedesktop.Platform.GL.nvidia-396-24` is not mounted because "
        "`/sys/module/nvidia/version` says `396.24.02`\n"
    )
    facts = read(pasted)
    assert facts.kernel.nvidia_module_version == "396.24.02"
    ((severity, title),) = _mismatch(read, matrix, pasted)
    assert severity is Severity.WARN
    assert "396.24.02" in title


def test_the_running_driver_s_runtime_listed_is_ok(read: Read, matrix: Matrix) -> None:
    pasted = (
        "~ $ cat /sys/module/nvidia/version\n"
        "384.111\n"
        "~ $ flatpak list\n"
        "org.freedesktop.Platform.GL.nvidia-384-111/x86_64/1.4 system,runtime\n"
        "org.freedesktop.Platform.GL.nvidia-384-90/x86_64/1.4  system,runtime\n"
    )
    ((severity, title),) = _mismatch(read, matrix, pasted)
    assert severity is Severity.OK
    assert "nvidia-384-111" in title
    assert warn_or_error(findings_of(read, matrix, pasted)) == []


@pytest.mark.parametrize(
    "pasted",
    [
        # a runtime listed without the driver's version: nothing to compare
        "org.freedesktop.Platform.GL.nvidia-550-90-07/x86_64/1.4 system,runtime\n",
        # Mesa's runtime beside the driver: not the NVIDIA driver's
        "$ cat /sys/module/nvidia/version\n550.90.07\n"
        "org.freedesktop.Platform.GL.default/x86_64/23.08 system,runtime\n",
    ],
)
def test_near_misses_are_not_warned(read: Read, matrix: Matrix, pasted: str) -> None:
    findings = findings_of(read, matrix, pasted)
    assert [f.severity for f in findings if f.code == "driver-library-mismatch"] != [Severity.WARN]
    assert warn_or_error(findings) == []


@pytest.mark.parametrize(
    "line",
    [
        "[ 2263.536258] [ERROR]Cannot access secondary GPU - error: [XORG] (EE) NVIDIA(GPU-0): "
        "Failed to initialize the NVIDIA GPU at PCI:1:0:0.  Please",
        "[   159.042] (EE) NVIDIA(0): Failed to initialize the NVIDIA graphics device!",
        "(EE) NVIDIA(0): Failed to initialize the NVIDIA kernel module! Please ensure",
    ],
)
def test_the_x_driver_s_failed_gpu_is_named(read: Read, line: str) -> None:
    assert error_codes(read, line + "\n")[:1] == ["xorg-nvidia-gpu-init-failed"]


@pytest.mark.parametrize(
    "line",
    [
        # the GLX module (another problem), an X driver line that reports success
        "(EE) NVIDIA(0): Failed to initialize the GLX module; please check in your X",
        "[    21.240] (II) NVIDIA(0): Initialized GPU GART.",
        "[    21.238] (II) NVIDIA GLX Module  550.90.07  Release Build",
    ],
)
def test_other_x_driver_lines_are_not_named(read: Read, line: str) -> None:
    assert "xorg-nvidia-gpu-init-failed" not in error_codes(read, line + "\n")


@pytest.mark.parametrize(
    "line",
    [
        "on the H100 nodes cuInit fails with an 802 error",
        "CUDA initialization fails with 802 system error since the reboot",
    ],
)
def test_cuda_s_802_said_before_error_is_named(read: Read, line: str) -> None:
    assert error_codes(read, line + "\n")[:1] == ["system-not-initialized"]


@pytest.mark.parametrize(
    "line",
    [
        # an 802.11 adapter's error, a count of errors, a port number
        "wlan0: 802.11 error: association timed out",
        "the job finished with 802 errors out of 10000 samples",
        "listening on port 8802 error log disabled",
    ],
)
def test_other_802s_are_not_named(read: Read, line: str) -> None:
    assert "system-not-initialized" not in error_codes(read, line + "\n")
