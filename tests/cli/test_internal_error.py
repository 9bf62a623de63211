"""Exit 5: gpudoctor itself failed. A check that raises, or any other bug, is never a pass and
never a traceback: one line naming what failed and how to report it; the exception's class name
and traceback only under --debug (which moves behind the command too: `check --debug`)."""

from __future__ import annotations

from pathlib import Path

import pytest

import gpudoctor.checks
from gpudoctor.checks import REGISTRY, Intent, run_checks
from gpudoctor.cli.app import global_debug_first, run
from gpudoctor.exitcodes import ExitCode
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding
from gpudoctor.matrix.model import Matrix
from gpudoctor.report import FORMATS

HOST = str(Path(__file__).resolve().parents[1] / "data" / "hosts" / "h100-8x-healthy.json")


def broken_check(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    raise KeyError("no-such-field")


@pytest.fixture
def with_broken_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpudoctor.checks, "REGISTRY", (*REGISTRY, ("gpu", broken_check)))


@pytest.mark.usefixtures("with_broken_check")
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_crashing_check_exits_5_in_every_format_and_names_the_check(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(["check", "--from", HOST, "--format", fmt])
    out, err = capsys.readouterr()
    assert code == ExitCode.INTERNAL == 5
    assert "error: check broken_check crashed (a bug of gpudoctor" in err
    assert "gpudoctor check --debug" in err
    assert "gpudoctor snapshot -o host.json" in err
    assert "KeyError" not in out + err
    assert "Traceback" not in out + err
    if fmt == "text":
        assert "passed" not in out
        assert "gpudoctor itself failed (exit 5)" in out


@pytest.mark.usefixtures("with_broken_check")
def test_debug_shows_the_exception_and_traceback_with_the_same_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["check", "--debug", "--from", HOST]) == 5
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert "KeyError: 'no-such-field'" in err


@pytest.mark.usefixtures("with_broken_check")
def test_skipping_the_crash_finding_does_not_turn_it_into_a_pass(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["check", "--from", HOST, "--skip", "check-crashed"]) == 5


@pytest.mark.usefixtures("with_broken_check")
def test_a_fleet_with_a_crash_exits_5(capsys: pytest.CaptureFixture[str]) -> None:
    other = HOST.replace("h100-8x-healthy", "a100-8x-r535")
    assert run(["check", "--from", HOST, "--from", other]) == 5
    err = capsys.readouterr().err
    assert "a check crashed on at least one host" in err
    assert "KeyError" not in err


def test_the_crash_finding_carries_no_exception_name(
    with_broken_check: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpudoctor.facts_json import load
    from gpudoctor.matrix.load import load_matrix
    from gpudoctor.resources import default_matrix_path

    found = run_checks(load(Path(HOST)), load_matrix(default_matrix_path()))
    (crash,) = found.crashes
    assert (crash.check, crash.area, crash.error) == (
        "broken_check",
        "gpu",
        "KeyError: 'no-such-field'",
    )
    (finding,) = [f for f in found.findings if f.code == "check-crashed"]
    assert finding.subject == "broken_check"
    assert "KeyError" not in finding.title + finding.detail
    assert "gpudoctor check --debug" in finding.fix
    assert found.exit_code == 5


def test_any_other_bug_is_exit_5_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gpudoctor.cli.check_cmd

    def explode(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(gpudoctor.cli.check_cmd, "render", explode)
    code = run(["check", "--from", HOST, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 5
    assert err.startswith("error: `gpudoctor check` failed: an internal error of gpudoctor")
    assert "hint: run `gpudoctor check --debug`" in err
    assert '"exit_code": 5' in out
    assert "ZeroDivisionError" not in out + err


def test_debug_after_the_command_is_the_global_option() -> None:
    assert global_debug_first(["check", "--debug", "-v"]) == ["--debug", "check", "-v"]
    assert global_debug_first(["check", "--", "--debug"]) == ["check", "--", "--debug"]
    assert global_debug_first(["check"]) == ["check"]


def test_exit_5_is_documented() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "| 5 | gpudoctor itself failed" in readme
    help_text = run_help()
    assert "5 gpudoctor itself failed" in help_text


def run_help() -> str:
    from gpudoctor.cli.app import HELP

    return " ".join(HELP.split())


def test_a_probe_that_crashed_is_exit_5_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The facts record a crashed probe (collect_facts keeps the rest of the snapshot): the
    report is incomplete through a bug, so never a pass."""
    from dataclasses import replace

    from gpudoctor.facts import ProbeIssue
    from gpudoctor.facts_json import dumps, load

    facts = load(Path(HOST))
    issue = ProbeIssue("cudalibs", "*", "probe-crashed", "RuntimeError: runner bug")
    recorded = tmp_path / "host.json"
    recorded.write_text(dumps(replace(facts, issues=(*facts.issues, issue))))
    code = run(["check", "--from", str(recorded)])
    out, err = capsys.readouterr()
    assert code == 5
    assert "error: probe cudalibs crashed (a bug of gpudoctor" in err
    assert "RuntimeError" not in out + err
    assert run(["check", "--debug", "--from", str(recorded)]) == 5
    assert "RuntimeError: runner bug" in capsys.readouterr().err


@pytest.mark.usefixtures("with_broken_check")
def test_a_report_of_two_hosts_with_a_crash_says_so_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The several hosts of one pasted report are a fleet too, reported the same way."""
    from tests.support.pasted_samples import SMI_TABLE

    two = SMI_TABLE + "\nthe other node:\n" + SMI_TABLE.replace("570.86.16", "535.104.05")
    report = tmp_path / "two.log"
    report.write_text(two, encoding="utf-8")
    assert run(["check", "--from", str(report)]) == 5
    out, err = capsys.readouterr()
    assert "a check crashed on at least one host" in err
    assert "KeyError" not in out + err
