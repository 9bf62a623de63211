"""Versions as people write them in lists and markdown: "Driver==515.86.01" (pip's separator),
"pytorch `2.9.0+cu130`" (a code span)."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]


def test_pip_style_driver_line(read: Read) -> None:
    text = "python==3.9.11\nnvcc==cuda_11.8.r11.8/compiler.31833905_0\nDriver==515.86.01\n"
    assert read(text).nvml.driver_version == "515.86.01"


def test_markdown_quoted_versions(read: Read) -> None:
    facts = read("- installed pytorch `2.9.0+cu130` with uv\n- driver: `580.65.06`\n")
    assert [(f.name, f.version) for f in facts.frameworks] == [("torch", "2.9.0+cu130")]
    assert facts.nvml.driver_version == "580.65.06"


def test_a_quoted_word_after_the_name_is_no_version(read: Read) -> None:
    # Near miss: a code span that is no version; a driver's bus number.
    facts = read("torch `cuda` backend, driver `nvidia` 0000:01:00.0\nDriver Version: 550.54.15\n")
    assert facts.frameworks == ()
    assert facts.nvml.driver_version == "550.54.15"
