"""Bad input of every kind is one error line, a hint and exit 2 (or a warning), never a
traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.report.prometheus import render_prometheus

ROOT = Path(__file__).parents[2]
HOST = ROOT / "tests" / "data" / "hosts" / "h100-8x-healthy.json"
BIG = "9" * 5000


def _bad_input(args: list[str], capsys: pytest.CaptureFixture[str], needle: str) -> None:
    assert run(args) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "hint:" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("schema_version = 1\nx = " + "[" * 100_000, "nested too deeply"),
        ("schema_version = " + BIG, "not a valid matrix"),
    ],
    ids=["deep", "5000-digit-int"],
)
def test_hostile_matrix_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    path = tmp_path / "m.toml"
    path.write_text(text)
    _bad_input(["matrix", "validate", str(path)], capsys, needle)
    _bad_input(["--matrix", str(path), "check", "--from", str(HOST)], capsys, needle)


def test_absurd_numbers_in_a_matrix_are_refused_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "matrices" / "compat.toml").read_text()
    path = tmp_path / "m.toml"
    path.write_text(text.replace('version = "12.4.1"', f'version = "12.4.{"1" * 4400}"', 1))
    _bad_input(["matrix", "validate", str(path)], capsys, "version")


def test_an_oversized_matrix_is_refused_fast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gpudoctor.matrix.load.MAX_MATRIX_BYTES", 1024)
    path = tmp_path / "m.toml"
    path.write_text((ROOT / "matrices" / "compat.toml").read_text())
    _bad_input(["matrix", "validate", str(path)], capsys, "larger than")


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--from", str(HOST), "--require", f"driver>={BIG}"],
        ["check", "--from", str(HOST), "--require", f"cuda>={BIG}"],
        ["check", "--from", str(HOST), "--cuda", BIG],
        ["render", "--framework", "pytorch", "--version", BIG],
        ["render", "--framework", "pytorch", "--cuda", BIG],
        ["matrix", "show", f"pytorch-{BIG}"],
    ],
    ids=["require-driver", "require-cuda", "check-cuda", "version", "render-cuda", "row-id"],
)
def test_huge_numbers_on_the_command_line(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    _bad_input(args, capsys, "longer than gpudoctor accepts")


def test_an_unwritable_step_summary_is_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for where in (tmp_path / "missing" / "summary.md", tmp_path):
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(where))
        assert run(["check", "--from", str(HOST), "--format", "github"]) == 0
        captured = capsys.readouterr()
        assert "warning: cannot write the step summary" in captured.err
        assert "Traceback" not in captured.err


def test_a_step_summary_fifo_nobody_reads_is_a_warning_not_a_hang(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import threading

    fifo = tmp_path / "summary.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(fifo))
    codes: list[int] = []
    thread = threading.Thread(
        target=lambda: codes.append(run(["check", "--from", str(HOST), "--format", "github"])),
        daemon=True,
    )
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the step summary blocked on a FIFO without a reader"
    assert codes == [0]
    assert "warning: cannot write the step summary" in capsys.readouterr().err


def test_a_manifest_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "images"
    assert run(["render", "--all", "--out", str(out)]) == 0
    with (out / ".gpudoctor-manifest").open("ab") as stream:
        stream.write(b"\xff\xfe\n")
    capsys.readouterr()
    _bad_input(["render", "--all", "--out", str(out)], capsys, "not UTF-8")


def test_an_output_folder_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = os.fsdecode(os.fsencode(tmp_path) + b"/img\xff")
    _bad_input(["render", "--all", "--out", out], capsys, "not a UTF-8 path")


@pytest.mark.parametrize("args", [["check", "--from", str(HOST), "-v"], ["matrix", "list"]])
def test_an_ascii_only_stdout(args: list[str]) -> None:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout


def test_prometheus_of_huge_values_does_not_overflow() -> None:
    from dataclasses import replace

    from gpudoctor.facts_json import load

    facts = load(HOST)
    gpu = replace(facts.nvml.gpus[0], memory_total_bytes=10**400, retired_pages_count=-(10**400))
    facts = replace(facts, nvml=replace(facts.nvml, gpus=(gpu, *facts.nvml.gpus[1:])))
    text = render_prometheus(facts, (), exit_code=0)
    assert "+Inf" in text
    assert "-Inf" in text


def test_a_matrix_value_with_an_escape_sequence_is_refused_and_not_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "matrices" / "compat.toml").read_text()
    path = tmp_path / "m.toml"
    path.write_text(text.replace('label = "', 'label = "\\u001b]52;c;aGk=\\u0007', 1))
    assert run(["matrix", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "control character" in err
    assert "\x1b" not in err


def test_a_missing_matrix_file_hint_fits_matrix_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`matrix validate FILE` names no --matrix: its hint must not speak of one."""
    missing = str(tmp_path / "missing.toml")
    _bad_input(["matrix", "validate", missing], capsys, "cannot read matrix file")
    assert run(["matrix", "validate", missing]) == 2
    assert "given to --matrix" not in capsys.readouterr().err
