"""collect_env copied by hand: the colon lost (a tab or spaces instead), or full-width colons
from an input method, must read like the printed form."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error
from tests.support.pasted_samples import COLLECT_ENV

Read = Callable[[str], HostFacts]

_HEAD = COLLECT_ENV[: COLLECT_ENV.index("\nCPU:")]


def _without_colons(separator: str) -> str:
    # Only the key's own colon goes: "GPU 0: NVIDIA ..." inside the value keeps its own.
    return re.sub(r"^([A-Za-z][A-Za-z _]+?): ", lambda m: m.group(1) + separator, _HEAD, flags=re.M)


@pytest.mark.parametrize("separator", ["\t", " ", "   "])
def test_colonless_copy_reads_like_the_printed_form(read: Read, separator: str) -> None:
    text = _without_colons(separator).replace(
        "Is CUDA available" + separator + "True", "Is CUDA available" + separator + "False"
    )
    facts = read(text)
    assert facts.report is not None
    assert "collect_env" in facts.report.sections
    assert facts.frameworks[0].version == "2.5.1+cu124"
    assert facts.frameworks[0].cuda == "12.4"
    assert [d.cuda_available for d in facts.deep if d.name == "torch"] == [False]
    assert facts.nvml.gpus[0].name == "NVIDIA GeForce RTX 5090"
    assert facts.nvml.driver_version == "570.86.16"
    assert facts.platform.python_version == "3.10.12"


def test_fullwidth_colons_read_like_the_printed_form(read: Read) -> None:
    facts = read(_HEAD.replace(": ", "\uff1a"))
    assert facts.report is not None
    assert "collect_env" in facts.report.sections
    assert facts.nvml.gpus[0].name == "NVIDIA GeForce RTX 5090"
    assert facts.nvml.driver_version == "570.86.16"


def test_prose_naming_the_pytorch_version_is_no_collect_env(read: Read) -> None:
    # Near miss: a sentence starting with the key but no version after it.
    facts = read(
        "PyTorch version is the newest one\nNvidia driver version is old\n"
        "Driver Version: 550.54.15\n"
    )
    assert facts.report is not None
    assert "collect_env" not in facts.report.sections
    assert facts.frameworks == ()


def test_no_cuda_in_a_cpu_only_collect_env_is_no_gpu(read: Read, matrix: Matrix) -> None:
    # torch's collect_env writes "No CUDA" in its CUDA fields where torch has no CUDA
    text = (
        "PyTorch version: 2.3.0+cpu\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "OS: Ubuntu 22.04.4 LTS (x86_64)\nIs CUDA available: False\n"
        "CUDA runtime version: No CUDA\nGPU models and configuration: No CUDA\n"
        "Nvidia driver version: No CUDA\ncuDNN version: No CUDA\n"
    )
    facts = read(text)
    assert not facts.nvml.gpus
    assert facts.nvml.driver_version is None
    assert warn_or_error(findings_of(read, matrix, text)) == []
