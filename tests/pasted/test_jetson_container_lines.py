"""Jetson containers as reports show them: the host's L4T from a pasted /etc/nv_tegra_release
without its "#", or from the `apt-cache show` / `dpkg -s` stanza of nvidia-jetpack or
nvidia-l4t-core; an image named in one-line inline code; and a CUDA library a JetPack 4 container
cannot open, which is the NVIDIA runtime's host mounts, not a wheel to install."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.clean import clean

Read = Callable[[str], HostFacts]

_CURAND = "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"


def _error(findings: list[Finding], subject: str) -> Finding:
    (found,) = [f for f in findings if f.code == "report-error" and f.subject == subject]
    return found


@pytest.mark.parametrize(
    "line",
    [
        "# R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t210ref, EABI: aarch64",
        # as GitHub renders it (a heading) and a copy of the page gives it back
        "R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t210ref, EABI: aarch64",
    ],
)
def test_nv_tegra_release_with_or_without_its_hash(read: Read, line: str) -> None:
    assert read(line + "\n").platform.l4t_release == "32.6.1"


def test_a_release_word_without_the_revision_is_no_l4t(read: Read) -> None:
    facts = read("R32 (release) notes say nothing here\n" + _CURAND)
    assert facts.platform.l4t_release is None


@pytest.mark.parametrize(
    ("stanza", "jetpack", "l4t"),
    [
        (  # apt-cache show: Version right below Package
            "Package: nvidia-jetpack\nVersion: 5.0.1-b118\nArchitecture: arm64\n",
            "5.0.1",
            None,
        ),
        (  # dpkg -s: other fields between them
            "Package: nvidia-l4t-core\nStatus: install ok installed\nPriority: standard\n"
            "Section: admin\nInstalled-Size: 1234\nMaintainer: NVIDIA Corporation\n"
            "Architecture: arm64\nVersion: 32.7.4-20230608212426\n",
            None,
            "32.7.4",
        ),
    ],
)
def test_jetson_package_stanza(
    read: Read, stanza: str, jetpack: str | None, l4t: str | None
) -> None:
    facts = read(stanza + _CURAND)
    assert facts.platform.jetpack_release == jetpack
    assert facts.platform.l4t_release == l4t


def test_another_package_stanza_is_not_a_release(read: Read) -> None:
    facts = read("Package: nvidia-container\nVersion: 4.6.4-b39\nArchitecture: arm64\n" + _CURAND)
    assert facts.platform.jetpack_release is None
    assert facts.platform.l4t_release is None


def test_inline_code_in_triple_backticks_is_kept_and_a_fence_is_not() -> None:
    text = "```bash\n```docker run --runtime nvidia dustynv/ros:foxy-pytorch-l4t-r32.6.1```\n```\n"
    lines = clean(text).split("\n")
    assert lines[0] == ""  # the fences
    assert lines[2] == ""
    assert "dustynv/ros:foxy-pytorch-l4t-r32.6.1" in lines[1]


_R32_HOST = "R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t210ref, EABI: aarch64\n"


def test_jetpack4_container_library_is_the_runtime_mounts(read: Read, matrix: Matrix) -> None:
    facts = read(
        _CURAND
        + "```docker run -it --rm --runtime nvidia dustynv/ros:foxy-pytorch-l4t-r32.6.1```\n"
        + _R32_HOST
    )
    line = _error(run_checks(facts, matrix).findings, "cuda-math-library-missing")
    assert line.severity is Severity.ERROR
    assert "host-files-for-container.d" in line.detail
    assert "--runtime nvidia" in line.fix
    assert "csv-mounts=all" in line.fix
    assert "wheels" not in line.fix


def test_the_same_line_on_a_jetpack5_container_is_the_library_rule(
    read: Read, matrix: Matrix
) -> None:
    facts = read(
        _CURAND + "docker run --runtime nvidia dustynv/l4t-ml:r35.4.1\n"
        "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64\n"
    )
    line = _error(run_checks(facts, matrix).findings, "cuda-math-library-missing")
    assert "host-files-for-container.d" not in line.detail


def test_an_image_of_another_l4t_explains_the_line(read: Read, matrix: Matrix) -> None:
    facts = read(
        "docker run -it --rm --runtime nvidia nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.8-py3\n"
        + _CURAND
        + "Package: nvidia-jetpack\nVersion: 5.0.1-b118\nArchitecture: arm64\n"
    )
    findings = run_checks(facts, matrix).findings
    (image,) = [f for f in findings if f.code == "jetson-container-l4t"]
    assert image.severity is Severity.ERROR
    assert "34.1.1" in image.title  # JetPack 5.0.1's L4T, from the matrix
    assert _error(findings, "cuda-math-library-missing").severity is Severity.INFO
