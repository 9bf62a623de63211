"""Short driver pastes that say a part failed without saying why, and what they still tell:
a systemd unit of nvidia-persistenced that failed, udev's modprobe of an NVIDIA module that
failed, a distribution's DKMS hook that could not build the module, apt's history of a driver
upgrade, and nvidia-smi's "No devices were found" quoted in a sentence. Each is named (the
hidden cause is a symptom, an error only when nothing else in the paste names one), and its
near misses are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_codes, error_lines, findings_of, no_fact_read

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "Aug 16 00:03:03 host systemd[1]: Failed to start nvidia-persistenced.service - "
            "NVIDIA Persistence Daemon.",
            "nvidia-persistenced-service-failed",
        ),
        (
            "systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, "
            "status=1/FAILURE",
            "nvidia-persistenced-service-failed",
        ),
        (
            'fatal: [gpu-01]: FAILED! => {"changed": false, "msg": "Unable to start service '
            "nvidia-persistenced: Job for nvidia-persistenced.service failed because the control "
            'process exited with error code."}',
            "nvidia-persistenced-service-failed",
        ),
        (
            "localhost (udev-worker)[106246]: nvidia: Process '/sbin/modprobe nvidia-drm' failed "
            "with exit code 1.",
            "udev-modprobe-nvidia-failed",
        ),
        (
            "Building DKMS module 'nvidia-367.35' for kernel-4.7.2_1... FAILED!",
            "dkms-hook-nvidia-build-failed",
        ),
        ("Building DKMS module: nvidia-390.132... FAILED!", "dkms-hook-nvidia-build-failed"),
        (
            "DKMS module 'nvidia-367.35' failed to build, please check /var/lib/dkms",
            "dkms-hook-nvidia-build-failed",
        ),
    ],
)
def test_a_failed_driver_part_is_named_as_an_error_when_alone(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    assert error_codes(read, line + "\n")[:1] == [code]
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR


def test_the_udev_line_names_the_module_and_the_hook_line_the_driver(
    read: Read, matrix: Matrix
) -> None:
    udev = "systemd-udevd[512]: Process '/usr/bin/modprobe nvidia-uvm' failed with exit code 1.\n"
    (found,) = error_lines(findings_of(read, matrix, udev), "udev-modprobe-nvidia-failed")
    assert "`modprobe nvidia-uvm`" in found.detail
    hook = "Building DKMS module 'nvidia-367.35' for kernel-4.7.2_1... FAILED!\n"
    (built,) = error_lines(findings_of(read, matrix, hook), "dkms-hook-nvidia-build-failed")
    assert "nvidia-367.35" in built.detail


def test_the_failed_unit_is_a_symptom_beside_the_daemon_s_own_reason(
    read: Read, matrix: Matrix
) -> None:
    # the daemon's own line names the cause; systemd's line only says that it stopped
    pasted = (
        "nvidia-persistenced[900]: Failed to query NVIDIA devices. Please ensure that the NVIDIA "
        "device files (/dev/nvidia*) exist, and that user 143 has read and write permissions "
        "for those files.\n"
        "systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, "
        "status=1/FAILURE\n"
    )
    findings = findings_of(read, matrix, pasted)
    (unit,) = error_lines(findings, "nvidia-persistenced-service-failed")
    assert unit.severity is Severity.INFO
    (own,) = error_lines(findings, "nvidia-persistenced-init-failed")
    assert own.severity is Severity.ERROR


@pytest.mark.parametrize(
    "line",
    [
        # the daemon starting, another unit failing, another module's udev run and DKMS build,
        # an NVIDIA module built fine
        "systemd[1]: Starting NVIDIA Persistence Daemon...",
        "systemd[1]: Failed to start docker.service - Docker Application Container Engine.",
        "(udev-worker)[311]: sdb: Process '/sbin/modprobe btusb' failed with exit code 1.",
        "Building DKMS module: virtualbox-ose-6.0.14... FAILED!",
        "Building DKMS module 'nvidia-390.132' for kernel-5.3.13_1... done.",
    ],
)
def test_near_misses_are_not_named(read: Read, line: str) -> None:
    assert not {
        "nvidia-persistenced-service-failed",
        "udev-modprobe-nvidia-failed",
        "dkms-hook-nvidia-build-failed",
    } & set(error_codes(read, line + "\n"))


def test_apt_history_of_a_driver_upgrade_is_read_and_warned(read: Read, matrix: Matrix) -> None:
    pasted = (
        "Start-Date: 2021-06-04  06:41:09\n"
        "Commandline: /usr/bin/unattended-upgrade\n"
        "Upgrade: libnvidia-common-460:amd64 (460.73.01-0ubuntu0.20.04.1, "
        "460.80-0ubuntu0.20.04.2)\n"
        "End-Date: 2021-06-04  06:41:09\n"
    )
    facts = read(pasted)
    # libnvidia-common names the driver release, not a library's version
    assert facts.nvml.driver_version == "460.80"
    assert facts.nvml.library_version is None
    (found,) = error_lines(findings_of(read, matrix, pasted), "apt-history-driver-upgrade")
    assert found.severity is Severity.WARN
    assert "from 460.73.01 to 460.80" in found.detail


def test_apt_history_of_other_upgrades_is_not_a_driver_upgrade(read: Read) -> None:
    pasted = (
        "Start-Date: 2024-05-02  06:10:01\n"
        "Upgrade: linux-libc-dev:amd64 (5.15.0-105.115, 5.15.0-107.117), "
        "nvidia-container-toolkit:amd64 (1.14.6-1, 1.15.0-1)\n"
    )
    assert "apt-history-driver-upgrade" not in error_codes(read, pasted)


def test_no_devices_quoted_in_a_sentence_about_nvidia_smi_is_read(
    read: Read, matrix: Matrix
) -> None:
    said = (
        'After rebooting, I input "nvidia-smi" command in terminal and got "No devices were '
        'found". Any suggestions?\n'
    )
    assert not no_fact_read(read, said)
    (found,) = error_lines(findings_of(read, matrix, said), "nvidia-smi-no-devices")
    assert found.severity is Severity.ERROR
    # the words without nvidia-smi (another tool's search) are not nvidia-smi's answer
    assert "nvidia-smi-no-devices" not in error_codes(
        read, "The scanner said No devices were found matching the filter, so I gave up.\n"
    )


def test_nvidia_smi_without_its_driver_is_the_symptom_of_the_named_cause(
    read: Read, matrix: Matrix
) -> None:
    said = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n"
    )
    # alone, it is the error
    (alone,) = error_lines(findings_of(read, matrix, said), "nvidia-smi-no-driver")
    assert alone.severity is Severity.ERROR
    # beside the line that says why the module did not load, it is that cause's symptom
    pasted = said + (
        "gdm3[7055]: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
        "nvidia-settings-autostart.desktop[2777]: ERROR: NVIDIA driver is not loaded\n"
    )
    findings = findings_of(read, matrix, pasted)
    (cause,) = error_lines(findings, "secure-boot-rejected")
    assert cause.severity is Severity.ERROR
    for code in ("nvidia-smi-no-driver", "nvidia-settings-driver-not-loaded"):
        (symptom,) = error_lines(findings, code)
        assert symptom.severity is Severity.INFO


@pytest.mark.parametrize(
    "said",
    [
        "I installed with Secure Boot disabled, and later I enabled the Secure Boot. In such a "
        "case, the driver is no longer loaded during boot.",
        "Secure Boot is enabled and the nvidia module does not load after the update",
    ],
)
def test_secure_boot_said_with_the_driver_not_loading_is_named(
    read: Read, matrix: Matrix, said: str
) -> None:
    (found,) = error_lines(
        findings_of(read, matrix, said + "\n"), "secure-boot-said-driver-not-loading"
    )
    assert found.severity is Severity.ERROR


@pytest.mark.parametrize(
    "said",
    [
        # Secure Boot off, or on with the driver loading
        "I disabled Secure Boot and the driver still does not load",
        "Secure Boot is off and the nvidia module does not load",
        "Secure Boot is enabled and the driver loads fine",
    ],
)
def test_secure_boot_said_otherwise_is_not_named(read: Read, said: str) -> None:
    assert "secure-boot-said-driver-not-loading" not in error_codes(read, said + "\n")
