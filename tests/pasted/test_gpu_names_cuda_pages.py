"""The models NVIDIA's CUDA GPUs pages list (developer.nvidia.com/cuda-gpus and
/cuda-legacy-gpus), named as people paste them: nvidia-smi's table, collect_env's "GPU 0: ..."
and prose. Each gets its row's compute capability; a variant NVIDIA does not list on its own
("RTX 2060 SUPER", "... Laptop GPU") gets the model it varies. Near misses stay unknown or
unread: a family ("RTX 4000 series"), a listed model's words before another architecture's name
("RTX 3000 Ada"), a bare "T500" with no word about GPUs, and models no page lists."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted import gpu_names
from gpudoctor.pasted.build import compute_capability_for

Read = Callable[[str], HostFacts]

_SMI_ROW = "|   0  {name}     Off |   00000000:01:00.0  On |                  N/A |\n"


@pytest.mark.parametrize(
    ("text", "cc"),
    [
        (_SMI_ROW.format(name="NVIDIA GeForce RTX 3060 Ti"), "8.6"),
        (_SMI_ROW.format(name="NVIDIA GeForce RTX 3050 Ti Laptop GPU"), "8.6"),
        (_SMI_ROW.format(name="Quadro RTX 4000"), "7.5"),
        (_SMI_ROW.format(name="NVIDIA T1000 8GB"), "7.5"),
        ("GPU models and configuration: GPU 0: NVIDIA GeForce GTX 1650\n", "7.5"),
        ("GPU 0: NVIDIA GeForce RTX 3060 Laptop GPU\n", "8.6"),
        ("GPU 0: NVIDIA GeForce RTX 3050\n", "8.6"),
        ("GPU 0: Quadro T2000\n", "7.5"),
        ("my RTX 2060 SUPER crashes with CUDA error: no kernel image\n", "7.5"),
        ("I have a GeForce GTX 1660 SUPER and torch sees no GPU\n", "7.5"),
        ("training on an RTX 4090 Laptop GPU\n", "8.9"),
        ("2x NVIDIA GeForce RTX 4080 SUPER, driver 550\n", "8.9"),
        ("GPU: NVIDIA T400 4GB\n", "7.5"),
        ("GPU: Quadro RTX 5000 with Max-Q Design\n", "7.5"),
        ("GPU: NVIDIA RTX 4000 Ada Generation\n", "8.9"),  # not the Quadro RTX 4000
        ("GPU: NVIDIA RTX A2000 12GB\n", "8.6"),  # not the RTX 2000 Ada
        ("GPU: NVIDIA GeForce 940M\n", "5.0"),  # the legacy page
        ("GPU: Quadro M620\n", "5.2"),
    ],
)
def test_pasted_names_get_their_compute_capability(read: Read, text: str, cc: str) -> None:
    assert [g.compute_capability for g in read(text).nvml.gpus][:1] == [cc]


@pytest.mark.parametrize(
    ("smi_name", "cc"),
    [
        ("NVIDIA GeForce RTX 3090 Ti", "8.6"),
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "8.6"),
        ("NVIDIA GeForce GTX 1650 Ti", "7.5"),
        ("NVIDIA GeForce RTX 2060", "7.5"),
        ("Quadro RTX 3000", "7.5"),
        ("NVIDIA T600", "7.5"),
        ("Tesla T4", "7.5"),  # "T4" and "T400" are different words
        ("NVIDIA T400", "7.5"),
        ("NVIDIA A10", "8.6"),  # "A10" and "A100" likewise
        ("NVIDIA A100-PCIE-40GB", "8.0"),
        ("NVIDIA RTX 2000 Ada Generation", "8.9"),
    ],
)
def test_nvidia_smi_names_of_the_pages(matrix: Matrix, smi_name: str, cc: str) -> None:
    assert compute_capability_for(smi_name, matrix.architectures) == cc


def test_models_no_page_lists_stay_unknown(read: Read, matrix: Matrix) -> None:
    archs = matrix.architectures
    for name in ("NVIDIA GeForce MX450", "NVIDIA RTX A4500", "NVIDIA RTX 3000 Ada Generation"):
        assert compute_capability_for(name, archs) is None, name
    facts = read("GPU: NVIDIA RTX 3000 Ada Generation Laptop GPU\n")
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [("RTX 3000 Ada", None)]
    assert any("does not list" in note for note in facts.report.notes)


_HEADER = "NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4\n"


def test_a_family_or_a_bare_word_is_no_gpu(read: Read) -> None:
    for text in (
        "it fails on every RTX 4000 series card\n",
        "same on RTX 3000 series\n",
        "the wheels are built on T500 build hosts\n",
    ):
        assert read(_HEADER + text).nvml.gpus == (), text
    # the same words beside a word about GPUs are the model
    assert [g.compute_capability for g in read("my GPU is a T500\n").nvml.gpus] == ["7.5"]


def test_the_words_the_reader_is_given(matrix: Matrix) -> None:
    bare = gpu_names.brand_bare_words(matrix.architectures)
    assert {"T400", "T1000"} <= bare
    assert "A100" not in bare  # listed as one word: no GPU word needed
    words = gpu_names.architecture_words(matrix.architectures)
    assert words["ADA"] == {"8.9"}
    assert "7.5" not in words["ADA"]
