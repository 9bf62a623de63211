"""runner.py: the real command runner never raises; every failure is a value."""

from __future__ import annotations

import sys
import time

from gpudoctor.probes.runner import CommandResult, command_issue, run_command


def test_success_captures_output() -> None:
    result = run_command(
        [sys.executable, "-c", "print('hello'); import sys; print('e', file=sys.stderr)"]
    )
    assert result.ok
    assert (result.rc, result.stdout, result.stderr.strip()) == (0, "hello\n", "e")


def test_nonzero_exit_is_a_value() -> None:
    result = run_command(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"]
    )
    assert not result.ok
    assert result.rc == 3
    issue = command_issue("p", "f", result)
    assert issue.code == "command-failed"
    assert issue.reason.endswith("exited 3: boom")


def test_timeout_is_a_value_and_bounded() -> None:
    started = time.perf_counter()
    result = run_command([sys.executable, "-c", "import time; time.sleep(10)"], timeout_s=0.3)
    assert time.perf_counter() - started < 5
    assert (result.rc, result.error) == (None, "timeout")
    assert command_issue("p", "f", result).code == "command-timeout"


def test_missing_command_is_a_value() -> None:
    result = run_command(["gpudoctor-no-such-command-xyz", "--version"])
    assert result == CommandResult(
        ("gpudoctor-no-such-command-xyz", "--version"), None, error="not-found"
    )
    assert (
        command_issue("p", "f", result).reason
        == "`gpudoctor-no-such-command-xyz --version`: command not found"
    )


def test_output_the_caller_cannot_parse() -> None:
    result = CommandResult(("nvcc", "--version"), 0, "something else\nentirely\n")
    issue = command_issue("cudalibs", "toolkits.nvcc_version", result)
    assert issue.code == "command-output-unrecognised"
    assert issue.reason == "`nvcc --version` printed nothing recognisable: something else"
