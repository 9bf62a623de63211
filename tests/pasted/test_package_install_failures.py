"""A driver install that apt and dpkg left half-done: the package that failed (a symptom of the
error above it), dpkg refusing to mix two driver sets (a cause), apt's closing line."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

FAILED = (
    "dpkg: error processing package nvidia-dkms-535 (--configure):\n"
    " installed nvidia-dkms-535 package post-installation script subprocess returned error "
    "exit status 10\n"
    "Errors were encountered while processing:\n"
    " nvidia-dkms-535\n"
    "E: Sub-process /usr/bin/dpkg returned an error code (1)\n"
)


def test_a_failed_nvidia_package_alone_is_an_error_naming_it(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, FAILED)
    (package,) = error_lines(findings, "dpkg-nvidia-package-failed")
    assert package.severity.value == "error"
    assert "could not configure nvidia-dkms-535" in package.detail
    (apt,) = error_lines(findings, "apt-dpkg-failed")
    assert apt.severity.value == "info"  # the package line says more than apt's
    assert "exit code 1" in apt.detail


def test_the_dkms_build_failure_is_the_cause_and_the_package_its_symptom(
    read: Read, matrix: Matrix
) -> None:
    build = "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n"
    findings = findings_of(read, matrix, build + FAILED)
    (cause,) = error_lines(findings, "dkms-build-failed")
    assert cause.severity.value == "error"
    (package,) = error_lines(findings, "dpkg-nvidia-package-failed")
    assert package.severity.value == "info"
    assert [code for code, _ in warn_or_error(findings)] == ["report-error"]


def test_two_driver_sets_mixed_name_the_package_that_owns_the_file(
    read: Read, matrix: Matrix
) -> None:
    line = (
        " trying to overwrite '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so', which is also in "
        "package libnvidia-compute-535:amd64 535.183.01-0ubuntu0.22.04.1\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line + FAILED), "dpkg-nvidia-overwrite")
    assert found.severity.value == "error"
    assert "libnvidia-compute-535" in found.detail
    assert "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so" in found.detail


def test_near_misses(read: Read, matrix: Matrix) -> None:
    other = (
        "NVIDIA-SMI 535.183.01   Driver Version: 535.183.01   CUDA Version: 12.2\n"
        "dpkg: error processing package libc-bin (--configure):\n"
        " trying to overwrite '/usr/bin/foo', which is also in package foo-tools 1.0\n"
    )
    findings = findings_of(read, matrix, other)
    for code in ("dpkg-nvidia-package-failed", "dpkg-nvidia-overwrite"):
        assert error_lines(findings, code) == []
