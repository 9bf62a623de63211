"""The driver's version from the package manager's listings and logs (gpudoctor/pasted/
os_packages.py): each form read as the installed user-space library, compared with the loaded
kernel module by the driver/library mismatch check; removals, downloads and prose skipped."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.pasted import os_packages
from gpudoctor.pasted.dispatch import read_report

_PROC = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n"


@pytest.mark.parametrize(
    "line",
    [
        "ii  libnvidia-compute-550:amd64   550.107.02-0ubuntu0.22.04.1  amd64  NVIDIA libcompute",
        "nvidia-driver-550:amd64 550.107.02-0ubuntu0.24.04.1",
        "nvidia-utils-550/jammy-updates,jammy-security,now 550.107.02-0ubuntu0.22.04.1 amd64 "
        "[installed,automatic]",
        "Setting up libnvidia-compute-550:amd64 (550.107.02-0ubuntu0.22.04.1) ...",
        "Unpacking nvidia-utils-550 (550.107.02-0ubuntu0.22.04.1) over "
        "(550.90.07-0ubuntu0.22.04.1) ...",
        "Upgrade: libnvidia-common-550:amd64 (550.90.07-0ubuntu0.22.04.1, "
        "550.107.02-0ubuntu0.22.04.1), libnvidia-compute-550:amd64 (550.90.07-0ubuntu0.22.04.1, "
        "550.107.02-0ubuntu0.22.04.1)",
        "nvidia-driver-cuda-libs-550.107.02-1.el9.x86_64",
        "nvidia-driver-libs.x86_64            3:550.107.02-1.el9          @cuda-rhel9-x86_64",
        "nvidia-utils 550.107.02-1",
        # NVIDIA's RHEL repository's meta-package, with rpm's epoch
        "nvidia-driver-latest-dkms-3:550.107.02-1.el9.x86_64",
    ],
)
def test_each_listing_gives_the_installed_library(line: str, matrix: Matrix) -> None:
    facts = read_report(_PROC + line + "\n", "paste.txt", matrix.architectures)
    assert facts.nvml.library_version == "550.107.02"
    (mismatch,) = [
        f for f in run_checks(facts, matrix).findings if f.code == "driver-library-mismatch"
    ]
    assert mismatch.severity is Severity.ERROR
    assert "550.90.07" in mismatch.title
    assert "550.107.02" in mismatch.title


@pytest.mark.parametrize(
    "line",
    [
        "Remove: nvidia-driver-535:amd64 (535.183.01-0ubuntu0.22.04.1)",
        "Removing libnvidia-compute-535:amd64 (535.183.01-0ubuntu0.22.04.1) ...",
        "rc  libnvidia-compute-535:amd64   535.183.01-0ubuntu0.22.04.1  amd64  NVIDIA libcompute",
        "Get:7 http://archive.ubuntu.com/ubuntu jammy-updates/restricted amd64 "
        "libnvidia-compute-535 535.183.01-0ubuntu0.22.04.1 [49.5 MB]",
        "I tried nvidia-driver-535 and then 535.183.01 but nothing changed",
    ],
)
def test_removals_downloads_and_prose_are_not_the_installed_driver(
    line: str, matrix: Matrix
) -> None:
    facts = read_report(_PROC + line + "\n", "paste.txt", matrix.architectures)
    assert facts.nvml.library_version is None


@pytest.mark.parametrize(
    "line",
    [
        "ii  nvidia-dkms-550   550.107.02-0ubuntu0.22.04.1  amd64  NVIDIA DKMS package",
        "kmod-nvidia-latest-dkms-3:550.107.02-1.el9.x86_64",
        "kmod-nvidia-open-dkms-550.107.02-1.el9.x86_64",
    ],
)
def test_kernel_side_packages_give_the_driver_not_the_library(line: str, matrix: Matrix) -> None:
    facts = read_report(line + "\n", "paste.txt", matrix.architectures)
    assert facts.nvml.driver_version == "550.107.02"
    assert facts.nvml.library_version is None


def test_the_same_version_is_no_mismatch(matrix: Matrix) -> None:
    line = "ii  libnvidia-compute-550:amd64   550.90.07-0ubuntu0.22.04.1  amd64  NVIDIA libcompute"
    facts = read_report(_PROC + line + "\n", "paste.txt", matrix.architectures)
    (mismatch,) = [
        f for f in run_checks(facts, matrix).findings if f.code == "driver-library-mismatch"
    ]
    assert mismatch.severity is Severity.OK


def test_the_pattern_passes_the_backtracking_check() -> None:
    assert problem(os_packages._PACKAGE.pattern) is None


def test_prose_that_quotes_the_package_and_the_module_line(matrix: Matrix) -> None:
    facts = read_report(
        "After the update `nvidia-driver-550:amd64 550.107.02-0ubuntu0.24.04.1` is installed, "
        "but /proc/driver/nvidia/version says `NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
        "550.90.07  Fri May 31 09:35:42 UTC 2024`.\n",
        "paste.txt",
        matrix.architectures,
    )
    assert facts.kernel.nvidia_module_version == "550.90.07"
    assert facts.nvml.library_version == "550.107.02"


@pytest.mark.parametrize(
    "line",
    [
        "ii  nvidia-container-toolkit   1.14.3-1   amd64   NVIDIA Container toolkit",
        "  - nvidia-container-toolkit/bionic,now 1.5.1-1 amd64 [installed]",
        "nvidia-container-toolkit-1.16.1-1.x86_64",
        "Setting up nvidia-container-toolkit (1.17.3-1) ...",
    ],
)
def test_the_container_toolkit_package(line: str, matrix: Matrix) -> None:
    facts = read_report(line + "\n", "paste.txt", matrix.architectures)
    assert facts.container_runtime.toolkit_version in {"1.14.3", "1.5.1", "1.16.1", "1.17.3"}
    assert facts.nvml.driver_version is None
    # near miss: the toolkit named with a release in prose
    prose = read_report(
        "Driver Version: 550.54.15\nI upgraded nvidia-container-toolkit to 1.17.3 yesterday\n",
        "paste.txt",
        matrix.architectures,
    )
    assert prose.container_runtime.toolkit_version is None
