"""A cuDNN library that CTranslate2 (faster-whisper, whisperX) cannot load: that program brings
no cuDNN of its own, so the fix is a library path, not a framework reinstall."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_LINES = (
    "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot "
    "open shared object file: No such file or directory\n"
    "Please make sure libcudnn_ops_infer.so.8 is in your library path!\n"
    "Aborted (core dumped)\n"
)


def _cudnn_line(text: str, matrix: Matrix) -> Finding:
    facts = read_report(text, "paste.txt", matrix.architectures)
    run = run_checks(facts, matrix)
    (found,) = [
        f for f in run.findings if f.code == "report-error" and f.subject.startswith("cudnn-")
    ]
    return found


@pytest.mark.parametrize(
    "context",
    [
        '  File "/opt/venv/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 1172,'
        " in encode\n",
        "ctranslate2==4.4.0\n",
        "I run whisperx on a 4090 and it aborts:\n",
    ],
)
def test_ctranslate2_programs_get_the_library_path_fix(matrix: Matrix, context: str) -> None:
    found = _cudnn_line(context + _LINES, matrix)
    assert "brings no cuDNN of its own" in found.detail
    assert "LD_LIBRARY_PATH" in found.fix
    assert "reinstall" not in found.fix


def test_a_framework_paste_keeps_the_framework_fix(matrix: Matrix) -> None:
    # Near miss: the same line under torch, which brings its own cuDNN wheel.
    context = '  File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 456\n'
    found = _cudnn_line(context + _LINES, matrix)
    assert "CTranslate2" not in found.detail
    assert "reinstall the framework" in found.fix


def test_a_word_holding_whisper_is_no_ctranslate2(matrix: Matrix) -> None:
    # Near miss: openai-whisper runs on torch; only the CTranslate2-based names count.
    found = _cudnn_line("openai-whisper==20231117\nimport whisper\n" + _LINES, matrix)
    assert "CTranslate2" not in found.detail
