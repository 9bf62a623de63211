"""One voice on the command line: a mistyped option or command gets one `error:` line and a
`hint:` with did-you-mean (not click's usage block), and every `--format json` failure prints a
JSON error object on stdout with the exit code unchanged."""

from __future__ import annotations

import json

import pytest

from gpudoctor.cli.app import run

HOST = "tests/data/hosts/no-gpu-toolkit-only.json"


@pytest.mark.parametrize(
    ("args", "error", "guess"),
    [
        (["check", "--framwork", "pytorch"], "gpudoctor check: no such option --framwork",
         "did you mean --framework?"),
        (["chekc"], "gpudoctor: no such command 'chekc'", "did you mean check?"),
        (["matrix", "resolv"], "gpudoctor matrix: no such command 'resolv'",
         "did you mean resolve?"),
        (["build", "--dryrun"], "gpudoctor build: no such option --dryrun",
         "did you mean --dry-run?"),
    ],
)  # fmt: skip
def test_typo_gets_one_line_and_did_you_mean(
    capsys: pytest.CaptureFixture[str], args: list[str], error: str, guess: str
) -> None:
    code = run(args)
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.splitlines()
    assert lines[0] == f"error: {error}"
    assert lines[1].startswith(f"hint: {guess}")
    assert len(lines) == 2
    assert "Usage:" not in captured.err
    assert captured.out == ""


def test_missing_value_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["matrix", "resolve"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines()[0] == "error: gpudoctor matrix resolve: missing option '--framework'"
    assert err.splitlines()[1].startswith("hint: ")


@pytest.mark.parametrize(
    ("args", "code", "reference"),
    [
        (["check", "--from", HOST, "--framework", "pytorch==9.9"], 2, "bad-usage"),
        (["check", "--from", "no-such-file.json"], 2, "bad-snapshot"),
        (["check", "--framwork", "x"], 2, "bad-usage"),
        (["matrix", "resolve", "--framework", "pytorch", "--driver", "100"], 2,
         "no-matching-row"),
        (["matrix", "show", "pytorch==9.9"], 2, "bad-usage"),
        (["matrix", "list", "--framework", "jax"], 2, "bad-usage"),
        (["build", "--framework", "pytorch", "--cuda", "12.99"], 2, "bad-usage"),
        (["build", "--framework", "pytorch", "--driver", "100", "--dry-run"], 2,
         "no-matching-row"),
    ],
)  # fmt: skip
def test_json_format_failures_print_a_json_error(
    capsys: pytest.CaptureFixture[str], args: list[str], code: int, reference: str
) -> None:
    got = run([*args, "--format", "json"])
    captured = capsys.readouterr()
    assert got == code
    error = json.loads(captured.out)["error"]
    assert error["exit_code"] == code
    assert error["reference"] == reference
    assert error["message"]
    assert error["hint"]
    assert captured.err.startswith("error: ")


def test_json_error_lists_the_nearest_rows(capsys: pytest.CaptureFixture[str]) -> None:
    run(["matrix", "resolve", "--framework", "pytorch", "--driver", "100", "--format=json"])
    nearest = json.loads(capsys.readouterr().out)["error"]["nearest"]
    assert nearest[0]["row"].startswith("pytorch-")
    assert any("driver 100 is older than" in r for r in nearest[0]["reasons"])


def test_only_and_skip_suggest_the_nearest_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--from", HOST, "--only", "intent-verdct"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: --only: unknown check code 'intent-verdct'"
    assert err[1].startswith("hint: did you mean intent-verdict?")


def test_nearest_rows_are_nearest_by_version_with_reasons_that_inform(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["matrix", "resolve", "--framework", "pytorch==2.5", "--cuda", "13.0"]) == 2
    lines = capsys.readouterr().err.splitlines()
    # the asked release first (it lacks only the CUDA), then the nearest release that has it
    assert lines[1].startswith("  pytorch-2.5.1-cu124-")
    assert "pytorch 2.5.1 has builds for CUDA 11.8, 12.1, 12.4" in lines[1]
    # the nearest release with a cu130 build (its release build matrix names it)
    assert lines[2].startswith("  pytorch-2.9.1-cu130-")
    assert "release 2.9.1 is newer than the 2.5 asked for" in lines[2]


def test_version_option_is_checked_like_framework_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["build", "--framework", "pytorch", "--version", "9.9", "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith("error: pytorch 9.9 is not in the matrix; nearest: ")
