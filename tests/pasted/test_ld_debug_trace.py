"""An `LD_DEBUG=libs` trace: "calling init: PATH" is the file the loader loaded, and a "search
path=... (LD_LIBRARY_PATH)" line names the folders LD_LIBRARY_PATH gave: library-shadowing facts."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]

_WHEELS = "torch==2.5.1+cu121\nnvidia-cudnn-cu12==9.1.0.70\n"
_TRACE = (
    "     4242:\tfind library=libcudnn.so.9 [0]; searching\n"
    "     4242:\t search path=/usr/local/cuda-12.1/lib64/tls:/usr/local/cuda-12.1/lib64"
    "\t\t(LD_LIBRARY_PATH)\n"
    "     4242:\t  trying file=/usr/local/cuda-12.1/lib64/tls/libcudnn.so.9\n"
    "     4242:\t  trying file=/usr/local/cuda-12.1/lib64/libcudnn.so.9.0.0\n"
    "     4242:\t\n"
    "     4242:\tcalling init: /usr/local/cuda-12.1/lib64/libcudnn.so.9.0.0\n"
    "     4242:\tcalling init: /opt/venv/lib/python3.10/site-packages/nvidia/cublas/lib/"
    "libcublas.so.12\n"
    "     4242:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6\n"
)


def test_a_library_loaded_from_ld_library_path_shadows_the_wheel(
    read: Read, matrix: Matrix
) -> None:
    facts = read(_TRACE + _WHEELS)
    libs = facts.cuda_libs
    assert [(lib.name, lib.path, lib.version) for lib in libs.ld_library_path_libs] == [
        ("libcudnn", "/usr/local/cuda-12.1/lib64/libcudnn.so.9.0.0", "9.0.0")
    ]
    assert libs.resolved_libs == ()  # the wheel's own cuBLAS and libc are no CUDA copies
    (shadow,) = [f for f in run_checks(facts, matrix).findings if f.code == "library-shadowing"]
    assert shadow.severity is Severity.ERROR


def test_a_trace_alone_is_read(read: Read) -> None:
    facts = read(_TRACE)
    assert facts.report is not None
    assert len(facts.cuda_libs.ld_library_path_libs) == 1


def test_tried_files_and_runpath_folders_are_not_ld_library_path(read: Read) -> None:
    # Near misses: a file only tried is not loaded; a RUNPATH search is not LD_LIBRARY_PATH's.
    trace = (
        "     4242:\t search path=/usr/local/cuda-12.1/lib64\t\t(RUNPATH from file python)\n"
        "     4242:\t  trying file=/usr/local/cuda-12.1/lib64/libcublas.so.12\n"
        "     4242:\tcalling init: /usr/local/cuda-12.1/lib64/libcudnn.so.9.0.0\n"
    )
    libs = read(trace + _WHEELS).cuda_libs
    assert libs.ld_library_path_libs == ()
    assert [lib.path for lib in libs.resolved_libs] == [
        "/usr/local/cuda-12.1/lib64/libcudnn.so.9.0.0"
    ]
    assert libs.loader_cache_libs == ()  # loaded, not merely listed
