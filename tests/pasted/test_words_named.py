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


@pytest.mark.parametrize(
    "text",
    [
        "CUDA not available\n",
        "GPU not found\n",
        "no gpu\n",
        "it keeps using CPU instead of GPU\n",
        "CUDA is not detected by pytorch\n",
        "the nvidia card is not recognised\n",
        "No CUDA device found\n",
        "training falls back to the CPU\n",
        "GPU usage is 0% while training\n",
        "The GPU isn't being used\n",
        "pytorch can't detect my GPU\n",
    ],
)
def test_a_symptom_told_in_prose_names_a_host_with_a_gpu(
    read: Read, matrix: Matrix, text: str
) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    assert "gpu-host" in facts.report.named
    note = next(n for n in facts.report.notes if n.startswith("the paste names"))
    assert "a machine with a GPU" in note
    bad = [f for f in findings_of(read, matrix, text) if f.severity >= Severity.WARN]
    assert bad == []


@pytest.mark.parametrize(
    "text",
    [
        # a program's own notice where it finds no GPU, printed on any CPU-only machine
        "No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more "
        "info.)\n",
        "Could not find cuda drivers on your machine, GPU will not be used.\n",
        "No GPU needed, this runs on the CPU\n",
        "a GPU is not required for this step\n",
        "GPU usage is 40% while training\n",
    ],
)
def test_what_only_looks_like_the_symptom_names_no_gpu_host(read: Read, text: str) -> None:
    try:
        facts = read(text)
    except FactsError:
        return
    assert facts.report is not None
    assert "gpu-host" not in facts.report.named


def test_a_line_that_says_there_is_no_gpu_is_not_a_gpu_host(read: Read) -> None:
    facts = read("I don't have a GPU, so CUDA is not available, that's expected\n")
    assert facts.report is not None
    assert "cpu-only" in facts.report.named
    assert "gpu-host" not in facts.report.named


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("CUDA toolkit not found\n", "cuda"),
        ("No CUDA toolkit found\n", "cuda"),
        ("could not find CUDA\n", "cuda"),
        ("libcuda not found\n", "cuda"),
        ("nvcc is not installed\n", "cuda"),
        ("Failed to load CUDA\n", "gpu-host"),
        ("failed to initialize cuda\n", "gpu-host"),
        ("CUDA initialization failed\n", "gpu-host"),
        ("cuInit failed\n", "gpu-host"),
        ("Your GPU is not supported\n", "gpu-host"),
        ("Unsupported GPU\n", "gpu-host"),
    ],
)
def test_a_cuda_install_or_start_said_to_fail_is_read(read: Read, text: str, word: str) -> None:
    """Short statements that CUDA is missing or does not start, or that the GPU is not
    supported: what the paste is about, not 'no report recognised'."""
    facts = read(text)
    assert facts.report is not None
    assert facts.report.sections == (NAME,)
    assert word in facts.report.named


def test_tensorflows_notice_on_a_machine_without_a_gpu_names_no_cuda_install(read: Read) -> None:
    facts = read(
        "I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.\n"
        "Could not find cuda drivers on your machine, GPU will not be used.\n"
    )
    assert facts.report is not None
    assert "cuda" not in facts.report.named
    assert "gpu-host" not in facts.report.named
