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
