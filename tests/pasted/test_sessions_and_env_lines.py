"""Facts read from what people paste besides whole reports: an interactive Python session's
questions and answers, Hugging Face's `transformers env` lines, and `nvidia-smi -q`'s licence
lines quoted without their GPU block. Each paste is written here in the form the tools print,
with a near miss that must not be read."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.clean import clean

Read = Callable[[str], HostFacts]


def _severity(facts: HostFacts, matrix: Matrix, code: str) -> list[Severity]:
    return [f.severity for f in run_checks(facts, matrix).findings if f.code == code]


def test_a_python_prompt_is_not_a_markdown_quote() -> None:
    assert clean(">>> import torch\n> quoted\n> >>> torch.__version__\n") == (
        ">>> import torch\nquoted\n>>> torch.__version__\n"
    )


def test_a_session_gives_versions_and_the_cuda_answer(read: Read, matrix: Matrix) -> None:
    facts = read(
        ">>> import torch\n>>> torch.__version__\n'2.3.1+cu121'\n"
        ">>> torch.cuda.is_available()\nFalse\n"
        ">>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 3090'\n"
    )
    assert [(f.name, f.version, f.cuda) for f in facts.frameworks] == [
        ("torch", "2.3.1+cu121", "12.1")
    ]
    (deep,) = facts.deep
    assert deep.cuda_available is False
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA GeForce RTX 3090"]
    assert _severity(facts, matrix, "framework-cuda-available") == [Severity.ERROR]


def test_tensorflow_built_without_cuda_is_cpu_only(read: Read, matrix: Matrix) -> None:
    facts = read(
        ">>> tf.__version__\n'2.15.0'\n>>> tf.test.is_built_with_cuda()\nFalse\n"
        ">>> tf.config.list_physical_devices('GPU')\n[]\n"
    )
    (tf,) = facts.frameworks
    assert (tf.name, tf.version, tf.cpu_only) == ("tensorflow", "2.15.0", True)
    assert [d.cuda_available for d in facts.deep] == [False]


def test_a_session_question_without_its_answer_is_no_fact(read: Read) -> None:
    facts = read(
        "Driver Version: 550.54.15\n>>> torch.cuda.is_available()\n>>> x = 1\n"
        ">>> torch.__version__\nTraceback (most recent call last):\n"
    )
    assert facts.frameworks == ()
    assert facts.deep == ()


def test_transformers_env_says_whether_torch_found_a_gpu(read: Read, matrix: Matrix) -> None:
    facts = read(
        "- `transformers` version: 4.41.0\n- PyTorch version (GPU?): 2.3.0+cu121 (False)\n"
        "- Tensorflow version (GPU?): not installed (NA)\n- GPU type: NVIDIA A100-SXM4-80GB\n"
    )
    assert [(f.name, f.version) for f in facts.frameworks] == [("torch", "2.3.0+cu121")]
    assert [d.cuda_available for d in facts.deep] == [False]
    assert _severity(facts, matrix, "framework-cuda-available") == [Severity.ERROR]
    seen = read("- PyTorch version (GPU?): 2.3.0+cu121 (True)\n- GPU type: NVIDIA A100\n")
    assert _severity(seen, matrix, "framework-cuda-available") == [Severity.OK]


def test_a_grepped_licence_line_is_a_vgpu_guests_licence(read: Read, matrix: Matrix) -> None:
    facts = read(
        "$ nvidia-smi -q | grep -i -A2 licensed\n    vGPU Software Licensed Product\n"
        "        License Status                    : Unlicensed (Restricted)\n"
    )
    (gpu,) = facts.nvml.gpus
    assert gpu.vgpu_license is not None
    assert gpu.vgpu_license.state == "unlicensed_restricted"
    assert _severity(facts, matrix, "vgpu-license") == [Severity.ERROR]
    licensed = read("        License Status : Licensed (Expiry: 2026-12-31 0:0:0 GMT)\n")
    assert _severity(licensed, matrix, "vgpu-license") != [Severity.ERROR]
    # prose about licences is no licence state
    prose = read("Driver Version: 550.54.15\nthe License Status page says nothing\n")
    assert all(g.vgpu_license is None for g in prose.nvml.gpus)
