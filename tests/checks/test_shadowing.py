"""library-shadowing: a system cuDNN/cuBLAS/NCCL found before a framework's own wheels."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import Intent
from gpudoctor.checks.shadowing import check_library_shadowing
from gpudoctor.facts import BundledLib, CudaLibFacts, FrameworkFacts, HostFacts, LibraryFact
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

TORCH = FrameworkFacts(
    name="torch",
    version="2.5.1+cu124",
    cuda="12.4",
    cpu_only=False,
    bundled=(
        BundledLib("nvidia-cublas-cu12", "12.4.5.8"),
        BundledLib("nvidia-cudnn-cu12", "9.1.0.70"),
        BundledLib("nvidia-nccl-cu12", "2.21.5"),
        BundledLib("nvidia-nvjitlink-cu12", "12.4.127"),
        BundledLib("nvidia-cusparse-cu12", "12.3.1.170"),
    ),
)


def _judge(matrix: Matrix, **libs: tuple[LibraryFact, ...]) -> tuple[Severity, str]:
    facts = HostFacts(frameworks=(TORCH,), cuda_libs=CudaLibFacts(**libs))
    (one,) = check_library_shadowing(facts, matrix, Intent())
    return one.severity, one.title


@pytest.mark.parametrize(
    ("libs", "severity", "title"),
    [
        ({}, Severity.OK, "no system CUDA library shadows torch's own wheels"),
        # same soname (libcudnn.so.9), another version, first on the search path
        (
            {
                "ld_library_path_libs": (
                    LibraryFact("libcudnn", "/opt/cudnn/lib/libcudnn.so.9.0.0", "9.0.0"),
                )
            },
            Severity.ERROR,
            "libcudnn 9.0.0 in LD_LIBRARY_PATH can shadow torch's own libcudnn 9.1.0.70",
        ),
        # another major is another soname: no clash
        (
            {
                "ld_library_path_libs": (
                    LibraryFact("libcudnn", "/opt/cudnn/lib/libcudnn.so.8.9.7", "8.9.7"),
                )
            },
            Severity.OK,
            "no system CUDA library shadows torch's own wheels",
        ),
        # the same version is harmless
        (
            {"ld_library_path_libs": (LibraryFact("libnccl", "/x/libnccl.so.2.21.5", "2.21.5"),)},
            Severity.OK,
            "no system CUDA library shadows torch's own wheels",
        ),
        # the loader cache comes after RUNPATH: only a note
        (
            {
                "loader_cache_libs": (
                    LibraryFact("libnccl", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3", "2.18.3"),
                )
            },
            Severity.INFO,
            "libnccl 2.18.3 in the loader cache (ld.so.conf) beside torch's own libnccl 2.21.5: "
            "torch loads its own first",
        ),
        # a copy the loader was seen loading from a system folder (ldd, LD_DEBUG): a warning
        (
            {
                "resolved_libs": (
                    LibraryFact("libnccl", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3", "2.18.3"),
                )
            },
            Severity.WARN,
            "libnccl 2.18.3 in /usr/lib/x86_64-linux-gnu (found through the loader cache) can "
            "shadow torch's own libnccl 2.21.5",
        ),
        # a stronger finding for another library wins over a cache note
        (
            {
                "loader_cache_libs": (
                    LibraryFact("libcudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.0.0", "9.0.0"),
                ),
                "ld_library_path_libs": (LibraryFact("libnccl", "/x/libnccl.so.2.18.3", "2.18.3"),),
            },
            Severity.ERROR,
            "libnccl 2.18.3 in LD_LIBRARY_PATH can shadow torch's own libnccl 2.21.5",
        ),
        # an older nvJitLink or cuSPARSE (a system CUDA 12.1) found first: the wheel's cuSPARSE
        # misses its symbols
        (
            {
                "ld_library_path_libs": (
                    LibraryFact(
                        "libnvJitLink",
                        "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12.1.105",
                        "12.1.105",
                    ),
                )
            },
            Severity.ERROR,
            "libnvJitLink 12.1.105 in LD_LIBRARY_PATH can shadow torch's own libnvJitLink "
            "12.4.127 (an older copy)",
        ),
        (
            {
                "ld_library_path_libs": (
                    LibraryFact("libcusparse", "/c/libcusparse.so.12.1.0.106", "12.1.0.106"),
                )
            },
            Severity.ERROR,
            "libcusparse 12.1.0.106 in LD_LIBRARY_PATH can shadow torch's own libcusparse "
            "12.3.1.170 (an older copy)",
        ),
        # a newer nvJitLink serves the wheel's callers: no clash
        (
            {"ld_library_path_libs": (LibraryFact("libnvJitLink", "/n/x.so", "12.6.77"),)},
            Severity.OK,
            "no system CUDA library shadows torch's own wheels",
        ),
        # only the major known: cannot tell, a warning
        (
            {"ld_library_path_libs": (LibraryFact("libcublas", "/y/libcublas.so.12", "12"),)},
            Severity.WARN,
            "libcublas 12 in LD_LIBRARY_PATH can shadow torch's own libcublas 12.4.5.8",
        ),
    ],
)
def test_shadowing_verdicts(
    matrix: Matrix, libs: dict[str, tuple[LibraryFact, ...]], severity: Severity, title: str
) -> None:
    assert _judge(matrix, **libs) == (severity, title)


def test_without_wheels_it_is_not_applicable(matrix: Matrix) -> None:
    facts = HostFacts(frameworks=(replace(TORCH, bundled=()),))
    (one,) = check_library_shadowing(facts, matrix, Intent())
    assert one.severity is Severity.NA
