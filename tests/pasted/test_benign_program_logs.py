"""Healthy start-up logs of GPU programs, as people paste them next to a question: every line
of the program's own format that says it runs on the GPU is read (no "no report recognised"),
and none raises a warning; prose that only quotes the words is not a log."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


def test_vllm_memory_profile_and_platform_named_blocks_are_read(read: Read, matrix: Matrix) -> None:
    # vLLM's worker.py memory profile and the executors' "# %s blocks" with the platform's
    # device name ("cuda" from 0.6.4; "GPU" before), as a terminal UI frames them.
    text = (
        "│ INFO 03-21 20:15:45 [worker.py:267] Memory profiling takes 34.26 seconds   │\n"
        "│ INFO 03-21 20:15:45 [worker.py:267] the current vLLM instance can use "
        "total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB   │\n"
        "│ INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191, # CPU blocks: 512 │\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert "program start-up logs" in facts.report.sections
    notes = "; ".join(facts.report.notes)
    assert "79.19 GiB" in notes
    assert "7191 GPU blocks" in notes
    assert warn_or_error(findings_of(read, matrix, text)) == []
    # Near miss: prose that quotes the words without vLLM's log prefix is not its log (read, at
    # most, as the program it names)
    prose = "I read that the current vLLM instance can use total_gpu_memory (80GiB) x 0.9\n"
    assert no_fact_read(read, prose)


def test_jax_logging_an_optional_backend_it_lacks_is_a_notice(read: Read, matrix: Matrix) -> None:
    text = (
        "I0503 09:29:04.952224 23456247981888 xla_bridge.py:353] Unable to initialize backend "
        "'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available "
        "platform names are: Interpreter CUDA Host\n"
        "I0503 09:29:04.952596 23456247981888 xla_bridge.py:353] Unable to initialize backend "
        "'tpu': module 'jaxlib.xla_extension' has no attribute 'get_tpu_client'\n"
    )
    findings = findings_of(read, matrix, text)
    (line,) = error_lines(findings, "jax-backend-probe-notice")
    assert line.severity is Severity.INFO
    assert "'rocm'" in line.detail
    assert warn_or_error(findings) == []
    # Near misses: the backend JAX_PLATFORMS asks for raises instead of logging, and the CUDA
    # backend failing is the NVIDIA GPU itself: neither is this notice.
    for near in (
        "RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered "
        'platform with name: "rocm". Available platform names are: Interpreter CUDA Host\n',
        "I0503 09:29:04.952224 23456247981888 xla_bridge.py:353] Unable to initialize backend "
        "'cuda': FAILED_PRECONDITION: No visible GPU devices.\n",
    ):
        gpu = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        near_findings = findings_of(read, matrix, gpu + near)
        assert not error_lines(near_findings, "jax-backend-probe-notice")


def test_l4t_clock_and_power_tools_make_the_host_a_jetson(read: Read, matrix: Matrix) -> None:
    for text in (
        "$ sudo jetson_clocks --show\n"
        "SOC family:tegra194  Machine:Jetson-AGX\n"
        "Online CPUs: 0-7\n"
        "cpu0: Online=1 Governor=schedutil MinFreq=1190400 MaxFreq=2265600 CurrentFreq=1190400\n",
        "$ sudo nvpmodel -q\nNV Power Mode: MODE_15W\n2\n",
        "time, 2020-09-03 10:28:30.003209\njetson_clocks, OFF\nnvp model, MAXN\nGPU, 0\n",
    ):
        facts = read(text)
        assert facts.platform.machine == "aarch64"
        assert facts.report is not None
        assert "jetson" in facts.report.named
        findings = findings_of(read, matrix, text)
        assert warn_or_error(findings) == []
        assert any(f.code == "no-nvidia-gpu" and "Jetson" in f.title for f in findings)
    report = read("SOC family:tegra194  Machine:Jetson-AGX\n").report
    assert report is not None
    assert "jetson_clocks: SoC tegra194, Jetson-AGX" in report.notes
    # Near miss: prose that names the power mode is not the tool's output.
    with pytest.raises(FactsError, match="no report recognised"):
        read("I set the NV Power Mode: MAXN on my board and it got faster\n")


def test_tensorflow_naming_the_cuda_libraries_it_opened_is_read(read: Read, matrix: Matrix) -> None:
    text = (
        "test    | 2021-01-06 16:28:38.933571: I tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0\n"
        "test    | 2021-01-06 16:28:39.739850: I tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:49] Successfully opened dynamic library libcuda.so.1\n"
        "2021-01-06 16:28:40.123456: I tensorflow/stream_executor/platform/default/dso_loader.cc"
        ":49] Successfully opened dynamic library cudnn64_8.dll\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert "TensorFlow GPU log" in facts.report.sections
    assert "TensorFlow opened libcudart.so.11.0, libcuda.so.1, cudnn64_8.dll" in facts.report.notes
    assert warn_or_error(findings_of(read, matrix, text)) == []
    # Near miss: prose that quotes the words names no library.
    with pytest.raises(FactsError, match="no report recognised"):
        read("the log said Successfully opened dynamic library but then nothing happened\n")


def test_vllm_marlin_weight_only_fallback_is_a_notice(read: Read, matrix: Matrix) -> None:
    text = (
        "WARNING 05-13 14:43:17 [marlin_utils_fp8.py:167] Your GPU does not have native "
        "support for FP8 computation but FP8 quantization is being used. Weight-only FP8 "
        "compression will be used leveraging the Marlin kernel. This may degrade performance "
        "for compute-heavy workloads.\n"
    )
    findings = findings_of(read, matrix, text)
    (line,) = error_lines(findings, "vllm-marlin-weight-only-notice")
    assert line.severity is Severity.INFO
    assert "FP8" in line.detail
    assert warn_or_error(findings) == []
    # Near miss: a kernel that refuses the FP8 type outright is not the Marlin fallback.
    refused = (
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        "ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes "
        "are ('fp8e4b15', 'fp8e5')\n"
    )
    assert not error_lines(findings_of(read, matrix, refused), "vllm-marlin-weight-only-notice")


def test_a_cuda_samples_device_line_is_read(read: Read, matrix: Matrix) -> None:
    # helper_cuda.h names the device a sample picked: the architecture in current samples, the
    # GPU in older ones; either way with its compute capability.
    arch = (
        "[Matrix Multiply Using CUDA] - Starting...\n"
        'GPU Device 0: "Volta" with compute capability 7.0\n\n'
        "Checking computed result for correctness: Result = PASS\n"
    )
    (gpu,) = read(arch).nvml.gpus
    assert gpu.name is None
    assert gpu.compute_capability == "7.0"
    assert warn_or_error(findings_of(read, matrix, arch)) == []
    named = 'GPU Device 1: "Tesla T4" with compute capability 7.5\n'
    (gpu,) = read(named).nvml.gpus
    assert (gpu.index, gpu.name, gpu.compute_capability) == (1, "Tesla T4", "7.5")
    # Near miss: prose about a device is not the sample's line.
    with pytest.raises(FactsError, match="no report recognised"):
        read("my GPU Device seems slow with compute capability questions\n")
