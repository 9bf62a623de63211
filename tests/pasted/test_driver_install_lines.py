"""Installing and loading the driver as users paste it: the NVIDIA installer's log
(/var/log/nvidia-installer.log), DKMS and its make.log, the kernel's module loader and apt.
Each failure line is named by its own entry with the line's numbers in cause and fix, the
installer's harmless warnings are information, and near misses are not named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def _codes(read: Read, text: str) -> list[str]:
    report = read(text).report
    assert report is not None
    return [e.code for e in report.errors]


@pytest.mark.parametrize(
    ("line", "code", "severity"),
    [
        (
            "WARNING: An NVIDIA kernel module 'nvidia-drm' appears to be already loaded in your "
            "kernel.  This may be because it is in use (for example, by an X server, a CUDA "
            "program, or the NVIDIA Persistence Daemon)",
            "installer-module-in-use",
            Severity.ERROR,
        ),
        ("WARNING: The CC version check failed:", "installer-cc-check-failed", Severity.WARN),
        (
            "WARNING: You appear to be running an X server.  Installing the NVIDIA driver while "
            "X is running is not recommended",
            "installer-x-server-running",
            Severity.ERROR,
        ),
        (
            "WARNING: Unable to find a suitable destination to install 32-bit compatibility "
            "libraries. Your system may not be set up for 32-bit compatibility.",
            "installer-compat32-skipped",
            Severity.INFO,
        ),
        (
            "WARNING: Unable to determine the path to install the libglvnd EGL vendor library "
            "config files. Check that you have pkg-config and the libglvnd development libraries "
            "installed, or specify a path with --glvnd-egl-config-path.",
            "installer-glvnd-egl-path",
            Severity.INFO,
        ),
        (
            "ERROR: The kernel module failed to load. Secure boot is enabled on this system, so "
            "this is likely because it was not signed by a key that is trusted by the kernel.",
            "installer-module-unsigned",
            Severity.ERROR,
        ),
    ],
)
def test_the_installer_log_lines_are_named(
    read: Read, matrix: Matrix, line: str, code: str, severity: Severity
) -> None:
    pasted = f"$ sudo cat /var/log/nvidia-installer.log\n{line}\n"
    assert _codes(read, pasted)[:1] == [code]
    (found,) = error_lines(findings_of(read, matrix, pasted), code)
    assert found.severity is severity


def test_the_harmless_installer_warnings_raise_no_alarm(read: Read, matrix: Matrix) -> None:
    pasted = (
        "WARNING: Unable to find a suitable destination to install 32-bit compatibility "
        "libraries. Your system may not be set up for 32-bit compatibility.\n"
        "WARNING: Unable to determine the path to install the libglvnd EGL vendor library "
        "config files.\n"
    )
    assert warn_or_error(findings_of(read, matrix, pasted)) == []


def test_the_compilers_are_carried(read: Read, matrix: Matrix) -> None:
    line = (
        "Warning: The kernel was built with gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04), "
        "but the current compiler version is cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "kernel-cc-mismatch")
    assert found.severity is Severity.WARN
    assert "gcc version 12.3.0" in found.detail
    # the compiler without the sentence's closing full stop
    assert "built with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0: " in found.detail
    assert "gcc version 12.3.0" in found.fix


def test_dkms_lines_carry_the_kernel_and_the_driver(read: Read, matrix: Matrix) -> None:
    headers = (
        "Error! Your kernel headers for kernel 6.5.0-14-generic cannot be found at "
        "/lib/modules/6.5.0-14-generic/build or /lib/modules/6.5.0-14-generic/source.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, headers), "dkms-kernel-headers-missing")
    assert "6.5.0-14-generic" in found.detail
    assert "linux-headers-6.5.0-14-generic" in found.fix
    log = "Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.\n"
    (made,) = error_lines(findings_of(read, matrix, log), "dkms-build-make-log")
    assert "535.183.01" in made.detail
    assert "/var/lib/dkms/nvidia/535.183.01/build/make.log" in made.fix


def test_a_compile_error_in_the_drivers_sources_names_the_release(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "/var/lib/dkms/nvidia/470.223.02/build/nvidia-drm/nvidia-drm-drv.c:1230:22: error: "
        "'struct drm_driver' has no member named 'gem_prime_mmap'\n"
    )
    assert _codes(read, line)[:1] == ["driver-source-compile-error"]
    (found,) = error_lines(findings_of(read, matrix, line), "driver-source-compile-error")
    assert "nvidia-drm/nvidia-drm-drv.c" in found.detail
    assert "gem_prime_mmap" in found.detail
    assert "470.223.02" in found.fix
    # the .run installer builds in its own unpacked tree
    run = (
        "/tmp/selfgz2461/NVIDIA-Linux-x86_64-525.60.13/kernel/nvidia/os-interface.c:1066:5: "
        "error: implicit declaration of function 'acpi_bus_get_device'\n"
    )
    (other,) = error_lines(findings_of(read, matrix, run), "driver-source-compile-error")
    assert "525.60.13" in other.detail


def test_the_loader_and_apt_lines_carry_their_names(read: Read, matrix: Matrix) -> None:
    dmesg = "[   12.345678] nvidia_drm: Unknown symbol drm_gem_object_free (err -2)\n"
    (found,) = error_lines(findings_of(read, matrix, dmesg), "module-unknown-symbol")
    assert "drm_gem_object_free" in found.detail
    assert "sudo modprobe nvidia_drm" in found.fix
    apt = (
        "The following packages have unmet dependencies:\n"
        " nvidia-driver-535 : Depends: nvidia-dkms-535 (<= 535.183.01-1) but it is not going "
        "to be installed\n"
    )
    (dep,) = error_lines(findings_of(read, matrix, apt), "apt-nvidia-unmet-depends")
    assert "nvidia-driver-535" in dep.detail
    assert "nvidia-dkms-535" in dep.detail
    assert "apt policy nvidia-driver-535 nvidia-dkms-535" in dep.fix


def test_a_module_name_is_not_read_as_the_module_version(read: Read) -> None:
    """'could not insert 'nvidia'' names the module, not its version (a fact the checks compare
    with the user-space library's)."""
    facts = read("modprobe: ERROR: could not insert 'nvidia': No such device\n")
    assert facts.kernel.nvidia_module_version is None


@pytest.mark.parametrize(
    "line",
    [
        # another module's DKMS log, another package's unmet dependency, another module's symbol
        "Consult /var/lib/dkms/virtualbox/7.0.10/build/make.log for more information.",
        "timeshift : Depends: rsync but it is not going to be installed",
        "[   3.1] vboxdrv: Unknown symbol kvm_set_memory_region (err -2)",
        # the installer's progress lines around the failures
        'Performing CC sanity check with CC="/usr/bin/cc".',
        "Kernel messages:",
        "/var/lib/dkms/nvidia/535.183.01/build/nvidia/nv.c:120:5: warning: unused variable 'x'",
    ],
)
def test_near_misses_are_not_named_as_driver_faults(read: Read, line: str) -> None:
    try:
        codes = _codes(read, line + "\n")
    except FactsError:  # no report recognised at all: nothing named either
        return
    assert not {
        "dkms-build-make-log",
        "apt-nvidia-unmet-depends",
        "module-unknown-symbol",
        "installer-cc-check-failed",
        "driver-source-compile-error",
    } & set(codes)


@pytest.mark.parametrize(
    ("line", "code", "severity"),
    [
        (
            "rmmod: ERROR: Module nvidia is in use by: nvidia_uvm nvidia_modeset",
            "nvidia-module-unload-busy",
            Severity.ERROR,
        ),
        (
            "modprobe: FATAL: Module nvidia_drm is in use.",
            "nvidia-module-unload-busy",
            Severity.ERROR,
        ),
        (
            "[    4.123456] nvidia: module license 'NVIDIA' taints kernel.",
            "nvidia-module-taints-kernel",
            Severity.INFO,
        ),
        (
            "nvidia-persistenced failed to initialize. Check syslog for more details.",
            "nvidia-persistenced-init-failed",
            Severity.ERROR,
        ),
        (
            "ERROR: Installation has failed.  Please see the file '/var/log/nvidia-installer.log' "
            "for details.",
            "installer-failed",
            Severity.ERROR,
        ),
        (
            "Error! Build of nvidia.ko failed for: 6.8.0-40-generic (x86_64)",
            "dkms-build-failed",
            Severity.ERROR,
        ),
    ],
)
def test_the_loader_daemon_and_installer_end_lines_are_named(
    read: Read, matrix: Matrix, line: str, code: str, severity: Severity
) -> None:
    assert _codes(read, line + "\n")[:1] == [code]
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is severity


def test_the_busy_module_is_named_in_cause(read: Read, matrix: Matrix) -> None:
    line = "modprobe: FATAL: Module nvidia_drm is in use.\n"
    (found,) = error_lines(findings_of(read, matrix, line), "nvidia-module-unload-busy")
    assert found.detail.startswith("nvidia_drm cannot be unloaded")


def test_the_module_taint_notices_raise_no_alarm(read: Read, matrix: Matrix) -> None:
    pasted = (
        "[    4.100000] nvidia: loading out-of-tree module taints kernel.\n"
        "[    4.123456] nvidia: module license 'NVIDIA' taints kernel.\n"
    )
    assert warn_or_error(findings_of(read, matrix, pasted)) == []


@pytest.mark.parametrize(
    "line",
    [
        # another module in use, another module's licence, another module's build
        "rmmod: ERROR: Module btusb is in use",
        "[    3.2] vboxdrv: module license 'unspecified' taints kernel.",
        "Error! Build of vboxdrv.ko failed for: 6.8.0-40-generic (x86_64)",
        "Starting NVIDIA Persistence Daemon...",
    ],
)
def test_other_modules_lines_are_not_named_as_nvidia_ones(read: Read, line: str) -> None:
    try:
        codes = _codes(read, line + "\n")
    except FactsError:  # no report recognised at all: nothing named either
        return
    assert not {
        "nvidia-module-unload-busy",
        "nvidia-module-taints-kernel",
        "dkms-build-failed",
        "nvidia-persistenced-init-failed",
    } & set(codes)


def test_a_missing_dnf_driver_stream_is_named_with_its_stream(read: Read, matrix: Matrix) -> None:
    pasted = "Error: Problems in request:\nmissing groups or modules: nvidia-driver:latest-dkms\n"
    assert _codes(read, pasted)[:1] == ["dnf-nvidia-driver-stream-missing"]
    (found,) = error_lines(findings_of(read, matrix, pasted), "dnf-nvidia-driver-stream-missing")
    assert "nvidia-driver:latest-dkms" in found.detail
    # a package (not a module stream) that dnf did not find is not this line: the repository
    # that ships the package is not configured
    other = read("Error: Unable to find a match: nvidia-driver-cuda\n")
    assert other.report is not None
    assert [e.code for e in other.report.errors] == ["nvidia-package-not-in-repos"]


def test_dkms_two_lines_of_one_failure_are_one_error(read: Read, matrix: Matrix) -> None:
    # DKMS prints the failure, then where its log is: the second, with the driver's version
    # and the log's path, is the one error; the first is shown as explained by it
    text = (
        "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n"
        "Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.\n"
    )
    found = findings_of(read, matrix, text)
    assert [title for _, title in warn_or_error(found) if "report shows" in title] == [
        "the report shows: Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more "
        "information."
    ]
    (first,) = error_lines(found, "dkms-build-failed")
    assert first.severity is Severity.INFO
    assert "explained by the report's line dkms-build-make-log" in first.detail


def test_the_installers_closing_line_is_explained_by_the_reason_before_it(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "ERROR: The Nouveau kernel driver is currently in use by your system.  This driver is "
        "incompatible with the NVIDIA driver.\n"
        "ERROR: Installation has failed.  Please see the file '/var/log/nvidia-installer.log' "
        "for details.  You may find suggestions on fixing installation problems in the README "
        "available on the Linux driver download page at www.nvidia.com.\n"
    )
    found = findings_of(read, matrix, text)
    (closing,) = error_lines(found, "installer-failed")
    assert closing.severity is Severity.INFO
    assert "nouveau-in-use" in closing.detail
    (reason,) = error_lines(found, "nouveau-in-use")
    assert reason.severity is Severity.ERROR
