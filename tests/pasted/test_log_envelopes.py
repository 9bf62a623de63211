"""A known line inside the envelope a log puts around it (a JSON record, logrus's fields,
klog's, journald's or kubectl's prefix) or broken by a hard wrap is named as the line itself;
each rule beside a near miss it must leave alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted import records
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]
_SMI = "NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4\n\n"


def _codes(read: Read, text: str) -> list[str]:
    report = read(_SMI + text).report
    assert report is not None
    return [e.code for e in report.errors]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # Docker's json-file log: Go's encoder writes ">=" as "\u003e="
        (
            '{"log":"nvidia-container-cli: requirement error: unsatisfied condition: '
            "cuda\\u003e=12.4, please update your driver to a newer version, or use an earlier "
            'cuda container: unknown\\n","stream":"stderr","time":"2024-03-05T10:00:01Z"}',
            "container-cuda-requirement",
        ),
        # zap: the message and its error in their own fields
        (
            '{"level":"error","ts":1709632801.1,"caller":"main.go:42","msg":"torch failed",'
            '"error":"RuntimeError: device \\u003e= 0 \\u0026\\u0026 device \\u003c num_gpus '
            'INTERNAL ASSERT FAILED"}',
            "torch-device-index",
        ),
        # journald before nvidia-smi's own words, which the catalogue anchors to the line
        (
            "Mar 05 10:00:01 gpu-node-1 nvidia-smi[812]: No devices were found",
            "nvidia-smi-no-devices",
        ),
        # klog before nvidia-smi's MIG listing
        (
            "E0412 10:11:12.123456       1 mig.go:12] No MIG-enabled devices found.",
            "mig-not-enabled",
        ),
        # logrus's text record: Go's %q escapes the quotes of the symbol's name
        (
            'time="2024-03-05T10:00:01Z" level=error msg="./all_reduce_perf: symbol lookup '
            'error: undefined symbol: \\"ncclCommWindowRegister\\""',
            "nccl-symbol-shadowed",
        ),
    ],
)
def test_a_line_in_a_log_envelope_is_named(read: Read, line: str, code: str) -> None:
    assert code in _codes(read, line + "\n")


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the same record shapes around words that are no error
        (
            '{"log":"nvidia-container-cli: checking condition cuda\\u003e=12.4: satisfied\\n",'
            '"stream":"stdout","time":"2024-03-05T10:00:01Z"}',
            "container-cuda-requirement",
        ),
        (
            "Mar 05 10:00:01 gpu-node-1 nvidia-smi[812]: No devices were found in the MIG "
            "config, using all GPUs",
            "nvidia-smi-no-devices",
        ),
        (
            'time="2024-03-05T10:00:01Z" level=error msg="undefined symbol: \\"cublasLtMatmul\\""',
            "nccl-symbol-shadowed",
        ),
    ],
)
def test_a_near_miss_in_a_log_envelope_is_not_named(read: Read, line: str, code: str) -> None:
    assert code not in _codes(read, line + "\n")


def test_a_benign_json_record_raises_nothing(read: Read, matrix: Matrix) -> None:
    text = (
        '{"level":"info","ts":1709632801.1,"msg":"Starting GRPC server for \'nvidia.com/gpu\'"}\n'
        '{"level":"info","ts":1709632801.2,"msg":"Registered device plugin for '
        "'nvidia.com/gpu' with Kubelet\"}\n"
    )
    assert warn_or_error(findings_of(read, matrix, _SMI + text)) == []


def test_message_is_none_for_a_plain_line() -> None:
    assert records.message("RuntimeError: CUDA error: out of memory") is None
    assert records.record("{not json}") is None
    assert (
        records.message('{"msg":"a \\"quoted\\" word\\tand a tab"}') == 'a "quoted" word\tand a tab'
    )


def test_a_wrapped_message_is_named_by_its_own_signature(read: Read) -> None:
    # a mail client's wrap at 72 columns: the generic "CUDA error:" entry would name the first
    # half; the whole line is a missing kernel image
    text = "RuntimeError: CUDA error: no kernel image is available for execution on\nthe device\n"
    codes = _codes(read, text)
    assert "no-kernel-image" in codes
    assert "cuda-error" not in codes


def test_a_keyword_cut_by_fold_is_found(read: Read) -> None:
    # `fold -w 80` cuts inside the keyword "driver version is insufficient"
    text = (
        "cudaGetDeviceCount returned 35 -> CUDA driver version is insufficient for CUDA r"
        "\nuntime version\n"
    )
    line = "cudaGetDeviceCount returned 35 -> CUDA driver version is insuffi"
    assert "driver-insufficient" in _codes(read, text)
    assert "driver-insufficient" in _codes(read, f"{line}\ncient for CUDA runtime version\n")


def test_lines_a_blank_line_parts_are_not_joined(read: Read) -> None:
    # the near miss: the two halves in paragraphs of their own are not one message
    text = "RuntimeError: CUDA error: no kernel image is available for\n\nexecution on the device\n"
    assert "no-kernel-image" not in _codes(read, text)


def test_log_records_are_not_joined_as_a_wrap(read: Read) -> None:
    # NCCL's records share a prefix: each is a line of its own, even at a similar width
    text = (
        "node1:1234:1250 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
        "node1:1234:1250 [0] NCCL WARN Cuda failure 'no kernel image is available for "
        "execution on the device'\n"
    )
    assert _codes(read, text) == ["nccl-gdr-disabled", "nccl-cuda-failure"]
