"""A paste no shape reads is read for the things it names (pasted/words.py): a framework, a
Jetson, MIG, a CUDA library folder; text that names none of them stays "no report recognised"."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.words import NAME
from tests.support.pasted_findings import Read, findings_of


@pytest.mark.parametrize(
    ("text", "said", "lines"),
    [
        ("import torch\nprint(torch.cuda.is_available())\n", "torch", (1,)),
        ("Running it on my Jetson.\nStill the same.\n", "a Jetson", (1,)),
        ("sudo apt install nvidia-jetpack\n", "a Jetson", (1,)),
        ("from tensorflow import keras\nmodel.fit(x, y)\n", "tensorflow", (1,)),
    ],
)
def test_the_words_a_paste_names_are_read(
    read: Read, matrix: Matrix, text: str, said: str, lines: tuple[int, ...]
) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    note = next(n for n in facts.report.notes if n.startswith("the paste names"))
    assert said in note
    assert "gpudoctor snapshot" in note
    assert {r.first for r in facts.report.ranges} == set(lines)
    # words are not facts: nothing is judged from them
    assert not facts.frameworks
    bad = [f for f in findings_of(read, matrix, text) if f.severity >= Severity.WARN]
    assert bad == []


def test_a_cuda_library_folder_alone_is_read(read: Read) -> None:
    facts = read("export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH\n")
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    assert any("/usr/local/cuda/lib64" in n for n in facts.report.notes)


def test_beside_a_fact_the_words_are_no_section(read: Read) -> None:
    facts = read("import torch\ntorch 2.3.1+cu121\n")
    assert facts.report is not None
    assert NAME not in facts.report.sections


@pytest.mark.parametrize(
    "text", ["hello world\nthanks for the help\n", "x = 1\nprint(x)\n", "It still hangs.\n"]
)
def test_text_that_names_nothing_is_not_read(read: Read, text: str) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read(text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("sudo jetson_clocks\nsudo nvpmodel -m 0\n", "a Jetson"),
        ("CUDA_HOME=/usr/local/cuda\nnvcc not found\n", "CUDA"),
        ("echo $CUDA_PATH\n/usr/local/cuda\n", "CUDA"),
        ("docker run --rm --runtime nvidia -it my-image\n", "a container started"),
    ],
)
def test_tools_and_variables_named(read: Read, text: str, said: str) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    assert any(n.startswith(f"the paste names {said}") for n in facts.report.notes)


def test_a_variable_that_only_looks_like_cuda_home_is_no_word(read: Read) -> None:
    with pytest.raises(FactsError):
        read("MY_CUDA_HOMEDIR=/opt/x\n")
