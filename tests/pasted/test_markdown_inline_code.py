"""A line pasted between triple backticks on the same line ("```CUDA error 222 ...```") is
inline code, not a Markdown fence: its text is read, only the backticks go. A real fence line
("```text", "~~~") still disappears."""

from __future__ import annotations

from gpudoctor.pasted.clean import clean


def test_inline_triple_backticks_keep_their_text() -> None:
    line = (
        "```CUDA error 222 at ggml-cuda.cu:420: the provided PTX was compiled with an "
        "unsupported toolchain.```\n"
    )
    assert clean(line) == (
        "CUDA error 222 at ggml-cuda.cu:420: the provided PTX was compiled with an unsupported "
        "toolchain.\n"
    )


def test_fence_lines_still_go() -> None:
    text = "```text\nDriver Version: 550.54.15\n```\n~~~~\nnvcc: NVIDIA (R)\n~~~~\n````\n"
    assert clean(text) == "\nDriver Version: 550.54.15\n\n\nnvcc: NVIDIA (R)\n\n\n"


def test_a_message_glued_to_its_opening_fence_keeps_its_text() -> None:
    line = "```RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert clean(line + "```\n") == line.replace("```", "") + "\n"
    assert clean("```console\nx\n```\n") == "\nx\n\n"  # near miss: a language name
