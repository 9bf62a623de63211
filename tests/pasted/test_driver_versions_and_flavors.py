"""Driver facts a paste states without the error message: the user-space library named by its
file beside the loaded module's version (driver-library-mismatch), the open kernel modules on a
GPU older than Turing (open-module-unsupported), and the kernel's lockdown refusing an unsigned
module (kernel-lockdown-unsigned-module)."""

from __future__ import annotations

import pytest

from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, named_lines, warn_or_error

_PROC = (
    "$ cat /proc/driver/nvidia/version\n"
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  {module}  Thu Feb 22 01:44:30 UTC 2024\n"
)
_PROC_OPEN = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024\n"
)
_LINK = (
    "$ ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
    "lrwxrwxrwx 1 root root 26 Jun 10 09:12 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 -> "
    "libnvidia-ml.so.{library}\n"
)


def _one(findings: list[Finding], code: str) -> Finding:
    (found,) = [f for f in findings if f.code == code]
    return found


@pytest.mark.parametrize(
    "link",
    [
        _LINK.format(library="550.90.07"),
        # ldconfig -v, and a link to an absolute path
        "/usr/lib/x86_64-linux-gnu:\n\tlibnvidia-ml.so.1 -> libnvidia-ml.so.550.90.07\n",
        "libnvidia-ml.so.1 -> /usr/lib64/libnvidia-ml.so.550.90.07\n",
    ],
)
def test_library_file_newer_than_the_loaded_module_is_a_mismatch(
    link: str, read: Read, matrix: Matrix
) -> None:
    text = link + _PROC.format(module="550.54.14")
    found = _one(findings_of(read, matrix, text), "driver-library-mismatch")
    assert found.severity is Severity.ERROR
    assert "550.54.14" in found.title
    assert "550.90.07" in found.title


@pytest.mark.parametrize(
    "text",
    [
        # the same release: the symlink's target and the module agree
        _LINK.format(library="550.54.14") + _PROC.format(module="550.54.14"),
        # nvidia-smi names the library by major.minor alone
        _PROC.format(module="570.124.06") + "NVML library version: 570.124\n",
        # a file listed alone may be an older driver's leftover: said, not the library in use
        "libnvidia-ml.so.550.90.07\n" + _PROC.format(module="550.54.14"),
        # a name without a version (the soname) says nothing
        _LINK.format(library="1") + _PROC.format(module="550.54.14"),
    ],
)
def test_one_release_is_no_mismatch(text: str, read: Read, matrix: Matrix) -> None:
    found = _one(findings_of(read, matrix, text), "driver-library-mismatch")
    assert found.severity is not Severity.ERROR


def test_lockdown_refusing_an_unsigned_module_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        "[   12.345678] Lockdown: modprobe: unsigned module loading is restricted; "
        "see man kernel_lockdown.7"
    )
    (found,) = named_lines(read, matrix, line, "kernel-lockdown-unsigned-module")
    assert found.severity is Severity.ERROR
    assert "Secure Boot" in found.detail
    assert "mokutil" in found.fix


def test_other_lockdown_refusals_are_not_named(read: Read, matrix: Matrix) -> None:
    line = "Lockdown: systemd-logind: hibernation is restricted; see man kernel_lockdown.7\n"
    text = line + _PROC.format(module="550.54.14")
    assert named_lines(read, matrix, text, "kernel-lockdown-unsigned-module") == []


_FORM = (
    "### NVIDIA Open GPU Kernel Modules Version\n\n"
    "NVIDIA Open GPU Kernel Modules Version: 560.35.03\n\n"
    "### GPU Hardware\n\n{gpu}\n\n"
    "### Describe the bug\n\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


def test_open_modules_on_a_pascal_gpu_are_an_error(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, _FORM.format(gpu="GeForce GTX 1070"))
    found = _one(findings, "open-module-unsupported")
    assert found.severity is Severity.ERROR
    assert "GeForce GTX 1070" in found.title
    assert "Pascal" in found.title
    assert "-M=proprietary" in found.fix
    # nvidia-smi's failure is explained by it, not a second error with another fix
    assert [c for c, _ in warn_or_error(findings)] == ["open-module-unsupported"]


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        # Turing: the open modules drive it
        (_PROC_OPEN + "GPU 0: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-7a1b2c3d-4e5f-6a7b)\n", "ok"),
        # Pascal under the proprietary flavor: nothing to say
        (
            _PROC.format(module="550.120")
            + "GPU 0: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-7a1b2c3d-4e5f-6a7b)\n",
            "n/a",
        ),
    ],
)
def test_open_module_near_misses(text: str, severity: str, read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, text)
    assert _one(findings, "open-module-unsupported").severity.value == severity
    assert warn_or_error(findings) == []


def test_matrix_marks_gpus_before_turing(matrix: Matrix) -> None:
    marked = {a.compute_capability for a in matrix.architectures if a.open_module_unsupported}
    assert {"5.2", "6.1", "7.0"} <= marked
    assert not marked & {"7.5", "8.0", "8.9", "9.0", "12.0"}
    assert not any(a.open_module_unsupported and a.open_module_only for a in matrix.architectures)
