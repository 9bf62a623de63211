"""JetPack and L4T releases read from what people paste (prose, `dpkg -l`, /etc/nv_tegra_release),
and what the matrix's [[jetpack]] table then gives the checks; near misses that must not read as
a release."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("text", "l4t", "jetpack"),
    [
        ("- **OS:** NVIDIA JetPack 6.2 (Linux for Tegra, aarch64)\n", None, "6.2"),
        ("my jetson nano (Jetpack 4.4 [L4T 32.4.3]) says False\n", "32.4.3", "4.4"),
        ("ii  nvidia-jetpack  5.1.2-b104  arm64  NVIDIA Jetpack Meta Package\n", None, "5.1.2"),
        ("ii  nvidia-l4t-core  35.4.1-20230801124926  arm64  Core\n", "35.4.1", None),
        # `apt list --installed`
        ("nvidia-l4t-core/stable,now 36.4.0-20240912212859 arm64 [installed]\n", "36.4.0", None),
        ("nvidia-jetpack/stable,now 6.1+b123 arm64 [installed]\n", None, "6.1"),
        ("# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic\n", "36.3.0", None),
        # prose runs the release on, brackets it, shortens JetPack to JP or drops "L4T"
        ("jetpack6.2 cuda12.2 now\n", None, "6.2"),
        ("I may have incompatible host Jetpack (4.6) instead of 4.4\n", None, "4.6"),
        ("Orin NX 16GB, JP6.0, torch from the jetson index\n", None, "6.0"),
        ("running r32.6.1 on my Jetson Nano\n", "32.6.1", None),
        ("AGX Orin flashed with R35.4.1\n", "35.4.1", None),
        # jetson-stats' environment and jetson-containers' start-up line
        ("JETSON_JETPACK=4.6\nJETSON_L4T=32.6.1\n", "32.6.1", "4.6"),
        ("-- L4T_VERSION=36.4.7  JETPACK_VERSION=6.2  CUDA_VERSION=12.2\n", "36.4.7", "6.2"),
    ],
)  # fmt: skip
def test_releases_are_read(read: Read, text: str, l4t: str | None, jetpack: str | None) -> None:
    facts = read(text + "torch 2.5.1\n")
    assert (facts.platform.l4t_release, facts.platform.jetpack_release) == (l4t, jetpack)
    # an L4T release is read on the Jetson itself; a JetPack may be named on the host flashing it
    assert facts.platform.machine == ("aarch64" if l4t else None)


@pytest.mark.parametrize(
    "text",
    [
        "I flashed jetpack 5 on the orin\n",  # no release number
        "see https://developer.nvidia.com/embedded/jetpack-sdk-512\n",  # a page's name
        "ii  nvidia-l4t-core  <none>  arm64\n",
        "nvidia-l4t-core/stable 36.4.0-20240912212859 arm64\n",  # apt list, not installed
        "nvidia-l4t-cudadebuggingsupport/stable,now 12.6-34622040.0 arm64 [installed]\n",
        "upgraded the server to R35.4.1 yesterday\n",  # a bare release on a line about no Jetson
        "FROM dustynv/l4t-ml:r32.6.1-py3\n",  # an image's L4T is the container's, not the host's
        "ship to jp 5.1 on the orin\n",  # "JP" only in capitals
        "MY_JETPACK=4.6\n",  # another program's variable
        "see https://developer.download.nvidia.com/compute/redist/JP/v512/pytorch/ on orin\n",
    ],
)
def test_near_misses_are_no_release(read: Read, text: str) -> None:
    facts = read(text + "torch 2.5.1\n")
    assert facts.platform.jetpack_release is None
    assert facts.platform.l4t_release is None


def test_a_pasted_jetpack_gets_its_cuda_judged(read: Read, matrix: Matrix) -> None:
    facts = read(
        "Jetson Xavier NX, JetPack 5.1.1\n"
        "PyTorch version: 2.5.0a0+872d972e41.nv24.08\n"
        "CUDA used to build PyTorch: 12.6\n"
    )
    run = run_checks(facts, matrix)
    (wheel,) = [f for f in run.findings if f.code == "jetson-wheel"]
    assert wheel.severity is Severity.WARN
    assert "JetPack 5.1.1 ships CUDA 11.4" in wheel.title
    assert "Jetson (L4T 35.3.1, JetPack 5.1.1), supports CUDA 11.4" in run.headlines["driver"]
    problems = (Severity.ERROR, Severity.WARN, Severity.UNKNOWN)
    alarms = [f.code for f in run.findings if f.area == "driver" and f.severity in problems]
    assert alarms == []


def _library_error(read: Read, matrix: Matrix, text: str) -> tuple[str, str]:
    run = run_checks(read(text), matrix)
    (error,) = [f for f in run.findings if f.code == "report-error"]
    return error.detail, error.fix


def test_another_jetpacks_cuda_runtime_asks_for_this_jetpacks_build(
    read: Read, matrix: Matrix
) -> None:
    cause, fix = _library_error(
        read,
        matrix,
        "Jetson Nano, Jetpack 4.4 [L4T 32.4.3]\n./uselib: error while loading shared "
        "libraries: libcudart.so.10.0: cannot open shared object file: No such file or directory\n",
    )
    assert "CUDA 10.0's runtime" in cause
    assert "JetPack 4.4 with CUDA 10.2" in cause
    assert "build for JetPack 4.4 (CUDA 10.2)" in fix
    assert "nvidia-*-cu10" not in fix


@pytest.mark.parametrize(
    "text",
    [
        # the JetPack's own CUDA runtime: not mounted or not installed, not another JetPack's
        "Jetson Nano, Jetpack 4.4 [L4T 32.4.3]\nImportError: libcudart.so.10.2: cannot open "
        "shared object file: No such file or directory\n",
        # CUDA 11 ships libcurand.so.10: a soname other than libcudart's says no CUDA release
        "Jetson Xavier NX, JetPack 5.1.1\nOSError: libcurand.so.10: cannot open shared object "
        "file: No such file or directory\n",
        # no Jetson: the generic cause
        "Linux-5.15.0-105-generic-x86_64\nImportError: libcudart.so.10.0: cannot open shared "
        "object file: No such file or directory\n",
    ],
)
def test_other_missing_libraries_keep_the_generic_cause(
    read: Read, matrix: Matrix, text: str
) -> None:
    cause, _ = _library_error(read, matrix, text)
    assert "another JetPack release" not in cause


@pytest.mark.parametrize(
    ("text", "toolkit"),
    [
        # jetson_release, jtop's info page, jetsonhacks' jetsonInfo: the toolkit JetPack installed
        ("- NVIDIA Jetson TX2\n   * CUDA 9.0.252\n", "9.0.252"),
        ("Libraries:\nCUDA: 12.2.140\ncuDNN: 8.9.4.25\n", "12.2.140"),
        (" NVIDIA Jetson TX1\n CUDA 10.0.326\n", "10.0.326"),
        # near misses: a CUDA without a build number (whose?), a line that says more, an image
        ("Jetson Orin Nano\nCUDA: 12.2\n", None),
        ("Jetson Orin Nano\nCUDA 12.2.140 is what the guide wants\n", None),
        ("Jetson Orin Nano\nFROM nvidia/cuda:12.2.140-devel\n", None),
    ],
)
def test_a_jetson_tools_cuda_line_is_the_toolkit(
    read: Read, text: str, toolkit: str | None
) -> None:
    toolkits = read(text).cuda_libs.toolkits
    assert [t.version for t in toolkits] == ([toolkit] if toolkit else [])


@pytest.mark.parametrize(
    ("text", "release"),
    [
        (" - Release: 5.15.136-tegra\n", "5.15.136-tegra"),  # jetson_release's Platform part
        (
            "Linux orin 5.10.120-tegra #1 SMP PREEMPT Tue Aug 1 12:32:50 PDT 2023 aarch64\n",
            "5.10.120-tegra",
        ),
        # near misses: a package version running on past the kernel's, a headers package name
        ("nvidia-l4t-kernel/stable,now 5.15.148-tegra-36.4.0-20240912212859 arm64\n", None),
        ("sudo apt install linux-headers-5.10.104-tegra\n", None),
    ],
)
def test_an_l4t_kernel_release_is_read(read: Read, text: str, release: str | None) -> None:
    assert read("Jetson Orin Nano, JetPack 6.0\n" + text).kernel.release == release


def test_jtop_service_log_names_the_machine(read: Read) -> None:
    line = "Feb 12 17:22:18 tegra-ubuntu jtop[23459]: [INFO] jtop.core.hardware - Hardware detected"
    assert read(line + " aarch64\n").platform.machine == "aarch64"
    # near miss: another program's words
    facts = read("Ubuntu 22.04\nudev: Hardware detected aarch64 board\n")
    assert facts.platform.machine is None
