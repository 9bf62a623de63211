"""Chinese, Japanese and Korean prose writes no space between words: a GPU name, a version or a
label glued to the characters around it is read as if spaced ("在Jetson Nano上", "驱动版本535")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.pasted.clean import clean

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("pasted", "cleaned"),
    [
        ("在Jetson Nano上运行时报错", "在 Jetson Nano 上运行时报错"),
        ("torch版本2.1.0+cu121", "torch version 2.1.0+cu121"),
        ("驱动版本535.104.05", "driver version 535.104.05"),
        ("ドライバーのバージョンは550.54.15です", "driver の version は 550.54.15 です"),
        ("드라이버 버전 535.104.05", "driver version 535.104.05"),
    ],
)
def test_cjk_edges_and_labels_are_spaced(pasted: str, cleaned: str) -> None:
    assert clean(pasted) == cleaned


def test_the_facts_in_cjk_prose_are_read(read: Read) -> None:
    facts = read("显卡\uff1aNVIDIA GeForce RTX 4090\uff0c驱动版本535.104.05\n")
    assert facts.nvml.driver_version == "535.104.05"
    assert [g.name for g in facts.nvml.gpus] == ["GeForce RTX 4090"]  # as prose names it
    torch = read("torch版本2.1.0+cu121\n").frameworks
    assert [(fw.name, fw.version) for fw in torch] == [("torch", "2.1.0+cu121")]


def test_ascii_and_other_scripts_are_left_as_they_are() -> None:
    table = "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |\n"
    assert clean(table) == table
    # Cyrillic is written with spaces between words: nothing is added next to its letters
    russian = "\u0434\u0440\u0430\u0439\u0432\u0435\u0440535 535.104.05"
    assert clean(russian) == russian
