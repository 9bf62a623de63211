"""A package manager that finds no NVIDIA package (apt, dnf, yum, zypper): the repository that
ships its family is not configured; the fix names that repository, and the line's package."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, named_lines

Read = Callable[[str], HostFacts]
CODE = "nvidia-package-not-in-repos"


@pytest.mark.parametrize(
    ("line", "package", "repo"),
    [
        ("E: Unable to locate package cuda", "cuda", "cuda-keyring"),
        ("E: Unable to locate package cuda-toolkit-12-4", "cuda-toolkit-12-4", "cuda-keyring"),
        ("E: Unable to locate package libcudnn9-cuda-12", "libcudnn9-cuda-12", "cuda-keyring"),
        ("E: Unable to locate package nvidia-cuda-toolkit", "nvidia-cuda-toolkit", "multiverse"),
        ("E: Unable to locate package nvidia-driver-550", "nvidia-driver-550", "non-free"),
        (
            "E: Package 'nvidia-driver-535' has no installation candidate",
            "nvidia-driver-535",
            "restricted",
        ),
        (
            "E: Unable to locate package nvidia-container-toolkit",
            "nvidia-container-toolkit",
            "libnvidia-container/stable/deb",
        ),
        ("No match for argument: cuda", "cuda", "cuda-keyring"),
        (
            "Error: Unable to find a match: nvidia-container-toolkit",
            "nvidia-container-toolkit",
            "nvidia-container-toolkit.repo",
        ),
        ("No provider of 'cuda-toolkit-12-4' found.", "cuda-toolkit-12-4", "zypper addrepo"),
        ("No package nvidia-docker2 available.", "nvidia-docker2", "libnvidia-container"),
    ],
)
def test_the_package_and_the_repository_of_its_family_are_named(
    read: Read, matrix: Matrix, line: str, package: str, repo: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", CODE)
    assert found.severity is Severity.ERROR
    assert f"finds no package {package} " in found.detail
    assert repo in found.fix


@pytest.mark.parametrize(
    "line",
    [
        "E: Unable to locate package python3-foo",  # not an NVIDIA package
        "Error: Unable to find a match: @nvidia-driver:550-dkms",  # a module stream's own entry
        "E: Unable to locate package linux-headers-5.3.0-1029-gcp",  # the kernel headers' entry
        "Package 'nvidia-driver-535' is not installed, so not removed",
        "No package cuda-toolkit-12-4 installed.",
    ],
)
def test_near_misses_are_not_named(read: Read, matrix: Matrix, line: str) -> None:
    from gpudoctor.errors import FactsError

    try:
        findings = findings_of(read, matrix, line + "\n")
    except FactsError:
        return
    assert error_lines(findings, CODE) == []
