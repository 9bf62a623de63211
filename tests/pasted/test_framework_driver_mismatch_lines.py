"""Driver lines read from framework logs and the kernel log: XLA's kernel/DSO version mismatch
(TensorFlow, JAX), its PTX-compiler warning in the newer wording, and the proprietary kernel
module refusing a GPU only the open modules drive."""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, named_lines, warn_or_error


def test_xla_kernel_dso_mismatch_names_both_versions(read: Read, matrix: Matrix) -> None:
    text = (
        "2025-04-08 10:11:12.131415: E external/local_xla/xla/stream_executor/cuda/"
        "cuda_driver.cc:152] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: "
        "UNKNOWN ERROR (303)\n"
        "2025-04-08 10:11:12.131660: E external/local_xla/xla/stream_executor/cuda/"
        "cuda_diagnostics.cc:262] kernel version 535.216.1 does not match DSO version 550.120.0 "
        "-- cannot find working devices in this configuration\n"
    )
    lines = named_lines(read, matrix, text, "xla-kernel-dso-mismatch")
    assert len(lines) == 1
    assert "550.120.0" in lines[0].detail
    assert "535.216.1" in lines[0].detail
    assert "535.216.1" in lines[0].fix
    # the NVML state the line implies makes the driver/library check an error
    found = findings_of(read, matrix, text)
    assert [f.severity for f in found if f.code == "driver-library-mismatch"] == [Severity.ERROR]


def test_kernel_version_matching_dso_is_not_named(read: Read, matrix: Matrix) -> None:
    # Near miss: the diagnostician's line when the versions agree (cuInit failed otherwise).
    text = (
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
        "I external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:176] kernel version "
        "seems to match DSO: 550.120.0\n"
    )
    assert not named_lines(read, matrix, text, "xla-kernel-dso-mismatch")
    found = findings_of(read, matrix, text)
    assert not [
        f for f in found if f.code == "driver-library-mismatch" and f.severity == Severity.ERROR
    ]


def test_xla_ptx_compiler_wording_names_both_cuda_versions(read: Read, matrix: Matrix) -> None:
    text = (
        "2025-07-21 10:00:01.123456: W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The "
        "NVIDIA driver's CUDA version is 12.2 which is older than the PTX compiler version "
        "12.8.93. Because the driver is older than the PTX compiler version, XLA is disabling "
        "parallel compilation, which may slow down compilation. You should update your NVIDIA "
        "driver or use the NVIDIA-provided CUDA forward compatibility packages.\n"
    )
    lines = named_lines(read, matrix, text, "xla-driver-older-than-ptxas")
    assert len(lines) == 1
    assert lines[0].severity == Severity.WARN
    assert "12.8.93" in lines[0].detail
    assert "12.2" in lines[0].detail
    assert "12.8.93." not in lines[0].detail  # the sentence's full stop is not the version's


def test_proprietary_module_on_an_open_only_gpu(read: Read, matrix: Matrix) -> None:
    text = (
        "[    5.141002] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\n"
        "               NVRM: installed in this system requires use of the NVIDIA open kernel "
        "modules.\n"
        "[    5.141020] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:1017)\n"
        "[    5.141030] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    )
    found = findings_of(read, matrix, text)
    bad = warn_or_error(found)
    assert [c for c, _ in bad] == ["report-error"]
    assert "open kernel modules" in bad[0][1]
    lines = named_lines(read, matrix, text, "nvrm-open-modules-required")
    assert lines
    assert lines[0].severity == Severity.ERROR


def test_open_module_without_gsp_is_not_this_line(read: Read, matrix: Matrix) -> None:
    # Near miss: the open flavour's converse message names its own signature.
    text = (
        "NVRM: The NVIDIA GPU 0000:05:00.0 (PCI ID: 10de:1b80)\n"
        "NVRM: installed in this system is not supported by open\n"
        "NVRM: nvidia.ko because it does not include the required GPU\n"
        "NVRM: System Processor (GSP).\n"
    )
    assert not named_lines(read, matrix, text, "nvrm-open-modules-required")
    assert named_lines(read, matrix, text, "open-module-needs-gsp")
