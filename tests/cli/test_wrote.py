"""`-o FILE` says what it wrote, in every command, with the same words (cli/common.wrote)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.cli.app import run

HOST = "tests/data/hosts/h100-8x-healthy.json"


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["check", "--from", HOST], "the text report (exit 0)"),
        (["check", "--from", HOST, "--format", "junit"], "the junit report (exit 0)"),
        (["check", "--from", HOST, "--from", HOST], "the text fleet report (exit 0)"),
        (["check", "--list"], "the list of check codes"),
        (["snapshot", "--no-docker", "--root", "tests/data/sysfs"],
         "the snapshot of this host (redacted)"),
        (["render", "--framework", "pytorch==2.5", "--cuda", "12.4"],
         "the Dockerfile of row pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"),
        (["build", "--framework", "pytorch==2.5", "--cuda", "12.4", "--dry-run"],
         "the Dockerfile of row pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"),
    ],
)  # fmt: skip
def test_output_file_is_announced_the_same_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], what: str
) -> None:
    target = tmp_path / "out.file"
    code = run([*args, "-o", str(target)])
    captured = capsys.readouterr()
    assert code == 0
    assert target.read_text(encoding="utf-8")
    assert captured.out == ""
    last = captured.err.splitlines()[-1]
    assert last == f"wrote {what} to {target}"
    assert re.fullmatch(r"wrote .+ to .+", last)


def test_stdout_says_nothing_extra(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--list"]) == 0
    assert "wrote" not in capsys.readouterr().err
