"""Framework start-up lines seen on threads the tool was not tuned on (round 16): a driver
library without a driver API entry point, Caffe2's cuDNN compiled/runtime check, a message
continued on pytest's "E   " or a Markdown quote's "> " lines, and IPython's source line."""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, named_lines


def test_libcuda_without_a_driver_api_symbol_is_an_old_driver(read: Read, matrix: Matrix) -> None:
    text = (
        'time=2024-09-04T14:28:41.837+08:00 level=INFO source=gpu.go:568 msg="unable to load '
        'cuda driver library" library=/usr/lib64/libcuda.so.460.106.00 error="symbol lookup for '
        "cuCtxCreate_v3 failed: /usr/lib64/libcuda.so.460.106.00: undefined symbol: "
        'cuCtxCreate_v3"\n'
    )
    lines = named_lines(read, matrix, text, "cuda-driver-symbol-missing")
    assert len(lines) == 1
    assert "cuCtxCreate_v3" in lines[0].detail
    assert not named_lines(read, matrix, text, "undefined-symbol")


def test_a_cuda_library_symbol_stays_with_the_generic_entry(read: Read, matrix: Matrix) -> None:
    # Near miss: cudnn*/cuda* symbols (lower case after "cu") are libraries', not the driver's.
    text = "ImportError: libtorch_cuda.so: undefined symbol: cudnnGetLibConfig\n"
    assert not named_lines(read, matrix, text, "cuda-driver-symbol-missing")
    assert len(named_lines(read, matrix, text, "undefined-symbol")) == 1


def test_caffe2_cudnn_mismatch_names_both_versions(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: [enforce fail at common_cudnn.h:108] version_match || "
        "backwards_compatible_7 || patch_compatible. cuDNN compiled (7102) and runtime (7005) "
        "versions mismatch\n"
    )
    lines = named_lines(read, matrix, text, "caffe2-cudnn-version-mismatch")
    assert len(lines) == 1
    assert "7102" in lines[0].detail
    assert "7005" in lines[0].detail


def test_other_versions_mismatch_is_not_cudnn(read: Read, matrix: Matrix) -> None:
    text = "error: client and server versions mismatch (1.2 vs 1.3)\n"
    assert not named_lines(read, matrix, text, "caffe2-cudnn-version-mismatch")


def test_jax_message_continued_on_pytest_lines(read: Read, matrix: Matrix) -> None:
    text = (
        "E   RuntimeError: Backend 'cuda' failed to initialize: Unable to use CUDA because of "
        "the following issues with CUDA components:\n"
        "E   Outdated cuDNN installation found.\n"
        "E   Version JAX was built against: 8907\n"
        "E   Minimum supported: 9100\n"
        "E   Installed version: 8907\n"
    )
    lines = named_lines(read, matrix, text, "jax-cuda-library-outdated")
    assert len(lines) == 1
    assert "9100" in lines[0].detail


def test_jax_message_continued_in_a_markdown_quote(read: Read, matrix: Matrix) -> None:
    text = (
        "> Outdated cuDNN installation found.\n"
        "> Version JAX was built against: 8907\n"
        "> Minimum supported: 9100\n"
    )
    assert len(named_lines(read, matrix, text, "jax-cuda-library-outdated")) == 1


def test_jax_message_cut_short_is_not_joined_with_unrelated_lines(
    read: Read, matrix: Matrix
) -> None:
    # Near miss: the versions are not on the lines that follow.
    text = (
        "jax:    0.4.31\n"
        "E   Outdated cuDNN installation found.\n"
        "E   see the log above\n"
        "E   exit 1\n"
    )
    assert not named_lines(read, matrix, text, "jax-cuda-library-outdated")


def test_ipython_source_line_is_not_an_error_line(read: Read, matrix: Matrix) -> None:
    text = (
        "/opt/conda/lib/python3.8/site-packages/cpm_kernels/library/cuda.py in "
        "checkCUStatus(error)\n"
        "    215     if error != CUDA_SUCCESS:\n"
        '--> 216         raise RuntimeError("CUDA Error: %s" % cuGetErrorString(error))\n'
        "RuntimeError: CUDA Error: no kernel image is available for execution on the device\n"
    )
    found = findings_of(read, matrix, text)
    shown = [f for f in found if f.code == "report-error" and f.severity == Severity.ERROR]
    assert len(shown) == 1
    assert "no kernel image" in shown[0].detail or "no kernel image" in shown[0].title
    assert all("--> 216" not in f.title for f in found)
