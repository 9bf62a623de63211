"""Lines programs print where nothing is wrong, as people paste them next to a question: each
must be read (the paste is no "no report recognised") and raise no warning or error, while the
near miss that is a fault keeps its verdict. Each test pastes a line of the kind the rule is for
(in the program's own format, not a thread's words) and its near miss."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def test_torch_cudnn_plan_skipped_is_a_notice(read: Read, matrix: Matrix) -> None:
    text = (
        "/opt/env/lib/python3.11/site-packages/torch/nn/modules/conv.py:456: UserWarning: Plan "
        "failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize "
        "Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at "
        "../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)\n"
        "  return F.conv2d(input, weight, bias, self.stride,\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "torch-cudnn-plan-skipped")
    assert found.severity is Severity.INFO
    assert "CUDNN_STATUS_NOT_SUPPORTED" in found.detail
    assert not error_lines(findings, "cudnn-status")
    assert warn_or_error(findings) == []
    # A cuDNN call that failed outright is still the library fault it says.
    failed = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
    (error,) = error_lines(findings_of(read, matrix, failed), "cudnn-status")
    assert error.severity in (Severity.WARN, Severity.ERROR)
    assert not error_lines(findings_of(read, matrix, failed), "torch-cudnn-plan-skipped")


def test_dcgm_exporter_skipping_dcp_metrics_is_a_notice(read: Read, matrix: Matrix) -> None:
    text = (
        'time="2023-05-02T08:00:01Z" level=info msg="Starting dcgm-exporter"\n'
        'time="2023-05-02T08:00:01Z" level=info msg="DCGM successfully initialized!"\n'
        'time="2023-05-02T08:00:01Z" level=info msg="Not collecting DCP metrics: Error getting '
        'supported metrics: Profiling is not supported for this group of GPUs or GPU"\n'
        'time="2023-05-02T08:00:01Z" level=warning msg="Skipping line 19 '
        "('DCGM_FI_PROF_GR_ENGINE_ACTIVE'): DCP metrics not enabled\"\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "dcgm-dcp-skipped")
    assert found.severity is Severity.INFO
    assert not error_lines(findings, "dcgm-profiling-unsupported")
    assert warn_or_error(findings) == []
    # An exporter that exits on the same error (before 2.1.2) is still the warning.
    fatal = (
        'time="2023-05-02T08:00:01Z" level=fatal msg="Error watching fields: Profiling is not '
        'supported for this group of GPUs or GPU"\n'
    )
    (warned,) = error_lines(findings_of(read, matrix, fatal), "dcgm-profiling-unsupported")
    assert warned.severity is Severity.WARN


_SMI = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla T4            {pm}  | 00000000:00:04.0 Off |                    0 |
| N/A   38C    P0    27W /  70W |      0MiB / 15360MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_persistence_mode_off_in_a_pasted_table_is_a_note(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, _SMI.format(pm="Off"))
    (found,) = [f for f in findings if f.code == "persistence-mode"]
    assert found.severity is Severity.INFO
    assert "nvidia-persistenced" in found.detail
    assert warn_or_error(findings) == []
    # On, it is simply ok.
    (on,) = [
        f for f in findings_of(read, matrix, _SMI.format(pm="On ")) if f.code == "persistence-mode"
    ]
    assert on.severity is Severity.OK


def test_an_ollama_log_without_its_device_lines_is_read(read: Read) -> None:
    config = (
        '2024/05/12 06:47:18 routes.go:1006: INFO server config env="map[OLLAMA_DEBUG:false '
        "OLLAMA_LLM_LIBRARY: OLLAMA_MAX_LOADED_MODELS:1 OLLAMA_NUM_PARALLEL:1 OLLAMA_ORIGINS:[http://"
        'localhost] OLLAMA_TMPDIR:]"\n'
        'time=2024-05-12T06:47:18.590-06:00 level=INFO source=images.go:704 msg="total blobs: 11"\n'
    )
    facts = read(config)
    assert facts.report is not None
    assert any("server config" in note for note in facts.report.notes)
    offload = (
        "Aug 22 17:36:22 host ollama[30907]: time=2025-08-22T17:36:22.027-04:00 level=INFO "
        "source=server.go:175 msg=offload library=cuda layers.requested=-1 layers.model=49 "
        'layers.offload=48 layers.split="" memory.available="[11.1 GiB]" '
        'memory.gpu_overhead="0 B" memory.required.full="11.4 GiB"\n'
    )
    facts = read(offload)
    assert facts.report is not None
    (note,) = [n for n in facts.report.notes if "layers" in n]
    assert "48 of 49 layers" in note
    assert "cuda library" in note
    assert "11.1 GiB" in note
    # The same words in prose are no log line: nothing is read.
    with pytest.raises(FactsError):
        read("I changed the server config and now the offload library is wrong\n")


def test_vllm_engine_statistics_are_read(read: Read, matrix: Matrix) -> None:
    v0 = (
        "INFO 05-22 02:21:04 metrics.py:229] Avg prompt throughput: 0.0 tokens/s, Avg generation "
        "throughput: 12.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV "
        "cache usage: 0.3%, CPU KV cache usage: 0.0%\n"
    )
    v1 = (
        "(APIServer pid=1) INFO 04-10 18:45:57 [loggers.py:259] Engine 000: Avg prompt "
        "throughput: 51.2 tokens/s, Avg generation throughput: 0.2 tokens/s, Running: 17 reqs, "
        "Waiting: 183 reqs, GPU KV cache usage: 0.9%, Prefix cache hit rate: 0.0%\n"
    )
    for text, usage in ((v0, "0.3%"), (v1, "0.9%")):
        facts = read(text)
        assert facts.report is not None
        assert any(f"GPU KV cache usage {usage}" in n for n in facts.report.notes)
        assert warn_or_error(list(run_checks(facts, matrix).findings)) == []
    # A throughput figure someone quotes is not vLLM's line.
    with pytest.raises(FactsError):
        read("Avg generation throughput: about 30 tokens/s on my box\n")


def test_cuda_visible_devices_next_to_a_cuda_programs_own_list(read: Read, matrix: Matrix) -> None:
    # llama.cpp lists the GPUs CUDA shows it: the one GPU 7 became its "Device 0".
    text = (
        "$ CUDA_VISIBLE_DEVICES=7 ./build/bin/llama-cli -m model.gguf -ngl 99\n"
        "ggml_cuda_init: found 1 CUDA devices:\n"
        "  Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0, VMM: yes\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = [f for f in findings if f.code == "cuda-visible-devices"]
    assert found.severity is Severity.INFO
    assert "nvidia-smi lists every GPU" in found.detail
    assert warn_or_error(findings) == []
    # nvidia-smi lists every GPU of the host: there, GPU 7 of one is missing.
    smi = "$ CUDA_VISIBLE_DEVICES=7 python train.py\n" + _SMI.format(pm="On ")
    (warned,) = [f for f in findings_of(read, matrix, smi) if f.code == "cuda-visible-devices"]
    assert warned.severity is Severity.WARN


def test_nccl_tests_summary_is_read(read: Read, matrix: Matrix) -> None:
    text = (
        "   134217728      33554432     float     sum      -1   2666.0   50.34   94.39      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 84.8558 \n"
        "#\n"
    )
    facts = read(text)
    assert facts.report is not None
    (note,) = [n for n in facts.report.notes if "nccl-tests" in n]
    assert "0 wrong values (OK)" in note
    assert "84.8558 GB/s" in note
    assert warn_or_error(list(run_checks(facts, matrix).findings)) == []
    failed = read("# Out of bounds values : 12 FAILED\n")
    assert failed.report is not None
    assert any("12 wrong values (FAILED)" in n for n in failed.report.notes)
    # The words quoted in prose, without the count, are no result.
    with pytest.raises(FactsError):
        read("what does '# Out of bounds values : ' mean?\n")


def test_vllm_start_up_lines_after_the_engine_line_are_read(read: Read, matrix: Matrix) -> None:
    v1 = (
        "(EngineCore_DP0 pid=66914) INFO 09-21 12:30:37 [gpu_model_runner.py:2581] Model loading "
        "took 2.2845 GiB and 74.270197 seconds\n"
        "INFO 06-02 11:03:18 [kv_cache_utils.py:637] GPU KV cache size: 1,131,008 tokens\n"
    )
    facts = read(v1)
    assert facts.report is not None
    assert any("(2.2845 GiB)" in n for n in facts.report.notes)
    assert any("(1,131,008 tokens on the GPU)" in n for n in facts.report.notes)
    assert warn_or_error(list(run_checks(facts, matrix).findings)) == []
    v0 = (
        "(VllmWorkerProcess pid=6923) INFO 07-17 23:41:16 model_runner.py:559] Loading model "
        "weights took 6.1138 GB\n"
        "INFO 07-17 23:41:28 distributed_gpu_executor.py:56] # GPU blocks: 10039, # CPU blocks: "
        "1310\n"
    )
    facts = read(v0)
    assert facts.report is not None
    assert any("(6.1138 GB)" in n for n in facts.report.notes)
    assert any("(10039 GPU blocks)" in n for n in facts.report.notes)
    # The same words outside vLLM's log format are someone's prose: nothing is read.
    with pytest.raises(FactsError):
        read("Model loading took 12 GiB and 30 seconds on my machine\n")
