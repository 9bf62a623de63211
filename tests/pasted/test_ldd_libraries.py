"""`ldd` output pasted with a pip list: a CUDA library a framework's nvidia-* wheel also ships,
resolved from a system or toolkit folder, is the copy the loader finds first. On a folder of
an LD_LIBRARY_PATH value the paste shows, it shadows the wheel's copy (error when older); from a
system folder it came through the loader's cache (warning). The wheel's own copies, and
libraries no wheel ships, are no finding."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]

PIP = (
    "torch                     2.5.1\n"
    "nvidia-nvjitlink-cu12     12.4.127\n"
    "nvidia-cusparse-cu12      12.3.1.170\n"
)


def _shadowing(read: Read, matrix: Matrix, text: str) -> Finding:
    (found,) = [f for f in run_checks(read(text), matrix).findings if f.code == "library-shadowing"]
    return found


def test_a_toolkit_copy_on_ld_library_path_shadows_the_wheel(read: Read, matrix: Matrix) -> None:
    text = (
        "$ export LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64:$LD_LIBRARY_PATH\n"
        "$ ldd venv/lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12\n"
        "\tlibnvJitLink.so.12 => /usr/local/cuda-12.1/lib64/libnvJitLink.so.12 (0x00007f1)\n"
        "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2)\n" + PIP
    )
    found = _shadowing(read, matrix, text)
    assert found.severity is Severity.ERROR
    assert "libnvJitLink 12.1 in LD_LIBRARY_PATH" in found.title
    assert "/usr/local/cuda-12.1/lib64" in found.fix


def test_a_system_copy_without_ld_library_path_is_the_loader_cache(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "\tlibnvJitLink.so.12 => /usr/lib/x86_64-linux-gnu/libnvJitLink.so.12.1.105 (0x1)\n" + PIP
    )
    found = _shadowing(read, matrix, text)
    assert found.severity is Severity.WARN
    assert "loader cache" in found.title


def test_the_wheels_own_copy_and_other_libraries_are_no_finding(read: Read, matrix: Matrix) -> None:
    text = (
        "\tlibnvJitLink.so.12 => /opt/venv/lib/python3.11/site-packages/torch/lib/../../nvidia/"
        "nvjitlink/lib/libnvJitLink.so.12 (0x1)\n"
        "\tlibstdc++.so.6 => /usr/lib/x86_64-linux-gnu/libstdc++.so.6 (0x2)\n" + PIP
    )
    assert _shadowing(read, matrix, text).severity is Severity.OK
