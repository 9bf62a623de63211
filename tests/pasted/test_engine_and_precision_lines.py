"""TensorRT's refusals of a serialized engine, as its logger prints them: an engine built on
another GPU architecture, or by another TensorRT release, each named with the numbers the line
states in their roles (which one is this host's, which one the engine's); and transformers
refusing bf16 training, whose two causes (a pre-Ampere GPU, no GPU seen) the finding names."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


def test_an_engine_built_on_another_gpu_names_both_capabilities(read: Read, matrix: Matrix) -> None:
    line = (
        "[10/10/2025-17:37:58] [TRT] [E] 6: The engine plan file is generated on an "
        "incompatible device, expecting compute 9.0 got compute 8.9, please rebuild.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "tensorrt-engine-other-gpu")
    assert "built on a GPU of compute capability 8.9 and this one is 9.0" in found.detail
    assert "trtexec --onnx" in found.fix


@pytest.mark.parametrize(
    ("line", "runtime", "engine"),
    [
        (
            "6: The engine plan file is not compatible with this version of TensorRT, expecting "
            "library version 8.2.3 got 8.2.1, please rebuild.",
            "8.2.3",
            "8.2.1",
        ),
        (
            "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReaderInitCommon::46] Error Code 1: "
            "Serialization (Serialization assertion stdVersionRead == serializationVersion "
            "failed.Version tag does not match. Note: Current Version: 236, Serialized Engine "
            "Version: 237)",
            "236",
            "237",
        ),
    ],
)
def test_an_engine_of_another_tensorrt_is_named_so(
    read: Read, matrix: Matrix, line: str, runtime: str, engine: str
) -> None:
    facts = read(line + "\n")
    assert facts.report is not None
    (error,) = facts.report.errors
    assert error.code == "tensorrt-engine-other-version"
    assert runtime in error.text
    assert engine in error.text
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert "another TensorRT release" in found.detail


def test_near_misses_are_not_engine_refusals(read: Read) -> None:
    text = (
        "torch==2.5.1+cu124\n"
        "Is the engine plan file generated on this device portable to an incompatible one?\n"
        "the version tag of the image matches\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert not facts.report.errors


@pytest.mark.parametrize(
    "line",
    [
        "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU "
        "with cuda>=11.0",
        "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want "
        "to train the model on CPU.",
    ],
)
def test_transformers_refusing_bf16_names_both_causes(
    read: Read, matrix: Matrix, line: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "transformers-bf16-unsupported")
    assert "older than Ampere" in found.detail
    assert "sees no GPU" in found.detail
    assert "fp16=True" in found.fix
    # near miss: a setup that does support it
    near = read("torch==2.5.1+cu124\nmy setup does support bf16 on the gpu\n")
    assert near.report is not None
    assert not near.report.errors
