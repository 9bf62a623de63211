"""Driver-side pastes are read and judged: the RM's GSP and VBIOS failure lines, the kernel's
module loader on a module of another kernel or an unsigned one, the .run installer's own checks
and ollama's install script name their causes; the module's load lines give its version; and
an NVRM line that says something failed is read (quoted, never "no report recognised") even
where the catalogue does not name it. Near misses stay quiet."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "[   23.99] nvidia 0000:07:00.0: Direct firmware load for nvidia/570.144/gsp_ga10x.bin "
            "failed with error -2",
            "nvrm-gsp-firmware-missing",
        ),
        ("NVRM: RmFetchGspRmImages: No firmware image found", "nvrm-gsp-firmware-missing"),
        (
            "NVRM: GPU0 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with "
            "booting GSP",
            "nvrm-gsp-wpr2-up",
        ),
        ("NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM", "nvrm-gsp-init-failed"),
        (
            "NVRM: GPU 0000:07:00.0: Failed to copy vbios to system memory.",
            "nvrm-vbios-copy-failed",
        ),
        (
            "nvidia: disagrees about version of symbol module_layout",
            "module-symbol-version-mismatch",
        ),
        ("[    8.41] Loading of unsigned module is rejected", "kernel-unsigned-module-rejected"),
        (
            "ERROR: The installation was canceled due to the availability or presence of an "
            "alternate driver installation. Please see /var/log/nvidia-installer.log for more "
            "details.",
            "installer-alternate-install",
        ),
        (
            "ERROR: Unable to find the development tool `make` in your path; please make sure "
            "that you have the package 'make' installed.  If make is installed on your system, "
            "then please check that `make` is in your PATH.",
            "installer-dev-tool-missing",
        ),
    ],
)
def test_the_driver_failure_lines_are_named_as_errors(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR


def test_the_firmware_line_carries_the_version_and_the_optional_log_firmware_is_quiet(
    read: Read, matrix: Matrix
) -> None:
    line = "nvidia 0000:01:00.0: firmware: failed to load nvidia/550.54.15/gsp_tu10x.bin (-2)\n"
    assert error_lines(findings_of(read, matrix, line), "nvrm-gsp-firmware-missing")
    # the GSP-RM log firmware is optional: the RM says so, and goes on
    optional = (
        "nvidia 0000:05:00.0: firmware: failed to load nvidia/595.71.05/gsp_log_ga10x.bin (-2)\n"
        "NVRM: RmFetchGspRmImages: Failed to load gsp_log_*.bin, no GSP-RM logs will be printed "
        "(non-fatal)\n"
    )
    assert error_lines(findings_of(read, matrix, optional), "nvrm-gsp-firmware-missing") == []


def test_the_gsp_cause_explains_the_generic_rm_init_adapter_line(
    read: Read, matrix: Matrix
) -> None:
    pasted = (
        "NVRM: GPU0 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP\n"
        "NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM\n"
        "NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x62:0x40:2192)\n"
        "NVRM: GPU 0000:04:00.0: rm_init_adapter failed, device minor number 0\n"
    )
    found = findings_of(read, matrix, pasted)
    errors = [dict(f.evidence).get("error") for f in found if f.severity is Severity.ERROR]
    assert errors == ["nvrm-gsp-wpr2-up"]
    (generic,) = error_lines(found, "rm-init-adapter-failed")
    assert generic.severity is Severity.INFO


def test_rm_init_adapter_alone_is_still_an_error(read: Read, matrix: Matrix) -> None:
    line = "NVRM: GPU 0000:07:00.0: rm_init_adapter failed, device minor number 0\n"
    (found,) = error_lines(findings_of(read, matrix, line), "nvrm-init-adapter-minor")
    assert found.severity is Severity.ERROR


def test_ollamas_install_script_without_a_cuda_repository(read: Read, matrix: Matrix) -> None:
    pasted = (
        ">>> Enabling and starting ollama service...\n"
        ">>> Installing NVIDIA repository...\n"
        "curl: (22) The requested URL returned error: 404\n"
    )
    found = error_lines(findings_of(read, matrix, pasted), "ollama-install-nvidia-repo-missing")
    assert [f.severity for f in found] == [Severity.ERROR]
    # the repository added: the script goes on to the driver, nothing failed
    fine = (
        ">>> Installing NVIDIA repository...\n>>> Installing CUDA driver...\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
    )
    assert warn_or_error(findings_of(read, matrix, fine)) == []


@pytest.mark.parametrize(
    ("line", "flavor"),
    [
        (
            "[    4.30] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX "
            "platforms  470.239.06  Wed Feb 28 23:24:03 UTC 2024",
            None,
        ),
        (
            "[   41.06] nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for "
            "x86_64  590.48.01  Release Build  (root@host)",
            "open",
        ),
    ],
)
def test_the_modeset_load_line_gives_the_module_version(
    read: Read, line: str, flavor: str | None
) -> None:
    kernel = read(line + "\n").kernel
    assert kernel.nvidia_module_version in ("470.239.06", "590.48.01")
    assert kernel.nvidia_module_flavor == flavor
    assert "nvidia" in kernel.modules_loaded


def test_the_modeset_line_keeps_the_nvrm_lines_flavor(read: Read) -> None:
    pasted = (
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"
        "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.120  "
        "Fri Sep 13 10:01:25 UTC 2024\n"
    )
    kernel = read(pasted).kernel
    assert (kernel.nvidia_module_version, kernel.nvidia_module_flavor) == (
        "550.120",
        "proprietary",
    )


def test_the_gpu_attach_line_says_the_module_is_loaded(read: Read) -> None:
    line = "NVRM: GPU at PCI:0000:3b:00: GPU-1a2b3c4d-0000-1111-2222-333344445555\n"
    assert "nvidia" in read(line).kernel.modules_loaded
    # a line that only names the bus is no such line
    assert no_fact_read(read, "GPU at PCI:0000:3b:00\n")


@pytest.mark.parametrize(
    "line",
    [
        "NVRM: kgspInitRm_IMPL: cannot bootstrap GSP from ucode",
        "NVRM: nvCheckOkFailedNoLog: Check failed: Call timed out [NV_ERR_TIMEOUT] (0x00000065)",
        "NVRM: GPU 0000:01:00.0: GPU is lost.  Skipping nv_stop_device",
        "NVRM: krcWatchdogRecovery_IMPL: RC watchdog: GPU is probably locked!",
        "NVIDIA: failed to load the NVIDIA kernel module.",
    ],
)
def test_an_unnamed_nvrm_failure_line_is_read_and_quoted(read: Read, line: str) -> None:
    report = read(line + "\n").report
    assert report is not None
    assert [u.text for u in report.unknown_lines] == [line]


def test_an_informational_nvrm_line_is_not_an_unknown_error(read: Read) -> None:
    line = "NVRM: GPU at 0000:01:00.0 has software scheduler ENABLED with policy BEST_EFFORT.\n"
    assert no_fact_read(read, line)


def test_a_gpu_missing_from_the_eks_amis_open_module_list(read: Read, matrix: Matrix) -> None:
    pasted = "$ grep -c 2C3A /etc/eks/nvidia-open-supported-devices-580.txt\n0\n"
    (found,) = error_lines(findings_of(read, matrix, pasted), "eks-gpu-not-in-open-module-list")
    assert found.severity is Severity.ERROR
    assert "10de:2C3A" in found.detail
    # listed: the AMI loads the open module for it, nothing is wrong
    listed = (
        "$ grep -c 2C3A /etc/eks/nvidia-open-supported-devices-580.txt\n1\n"
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.03  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:22:33 UTC 2025\n"
    )
    assert warn_or_error(findings_of(read, matrix, listed)) == []


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "ERROR: The kernel header file '/lib/modules/6.8.0-31-generic/build/include/linux/"
            "kernel.h' does not exist.  The most likely reason for this is that the kernel source "
            "path '/lib/modules/6.8.0-31-generic/build' is incorrect.",
            "installer-kernel-header-missing",
        ),
        (
            "Error! The /var/lib/dkms/nvidia/550.54.15/source/dkms.conf for module nvidia includes "
            "a BUILD_EXCLUSIVE directive which does not match this kernel/arch/config.",
            "dkms-nvidia-build-exclusive",
        ),
    ],
)
def test_the_module_build_refusals_are_named(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR


def test_another_modules_build_exclusive_is_not_the_drivers(read: Read, matrix: Matrix) -> None:
    line = (
        "Error! The /var/lib/dkms/zfs/0.8.3/5.11.0-37-generic/x86_64/dkms.conf for module zfs "
        "includes a BUILD_EXCLUSIVE directive which does not match this kernel/arch.\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
    )
    assert error_lines(findings_of(read, matrix, line), "dkms-nvidia-build-exclusive") == []


@pytest.mark.parametrize(
    "line",
    [
        "make[2]: *** [scripts/Makefile.build:243: /var/lib/dkms/nvidia/550.54.15/build/nvidia/"
        "nv.o] Error 1",
        "make: *** No rule to make target 'modules'.  Stop.",
    ],
)
def test_makes_failure_line_is_read(read: Read, line: str) -> None:
    report = read(line + "\n").report
    assert report is not None
    assert len(report.unknown_lines) == 1


def test_a_make_line_that_did_not_fail_is_not_read(read: Read) -> None:
    assert no_fact_read(read, "make[1]: Entering directory '/usr/src/linux-headers-6.8.0-31'\n")


def test_a_make_log_error_in_the_drivers_kernel_layer_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        "nvidia/nv-mmap.c:123:5: error: implicit declaration of function 'vm_flags_set' "
        "[-Werror=implicit-function-declaration]\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "driver-module-compile-error")
    assert "vm_flags_set" in found.detail
    # another project's file of the same name is not the driver's
    other = "mymod/nvidia.c:12:3: error: expected ';' before '}' token\n"
    assert error_lines(findings_of(read, matrix, other), "driver-module-compile-error") == []


def test_inxis_device_line_gives_the_loaded_module(read: Read) -> None:
    line = "  Device-1: NVIDIA GA102 [GeForce RTX 3090] driver: nvidia v: 535.113.01\n"
    kernel = read(line).kernel
    assert kernel.nvidia_module_version == "535.113.01"
    # nouveau drives it: no NVIDIA module version
    nouveau = "  Device-1: NVIDIA GA102 [GeForce RTX 3090] driver: nouveau v: kernel\n"
    assert read(nouveau).kernel.nvidia_module_version is None


def test_modinfo_asked_for_the_version_field_is_read(read: Read) -> None:
    report = read("$ modinfo -F version nvidia\n550.54.15\n").report
    assert report is not None
    assert any("550.54.15" in note for note in report.notes)
    # another module's version is not the driver's
    assert no_fact_read(read, "$ modinfo -F version e1000e\n3.2.6-k\n")
