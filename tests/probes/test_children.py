"""Attack tests for the children gpudoctor starts (gpudoctor/children.py, probes/runner.py): a
hung tool is killed with its whole group on SIGTERM and Ctrl-C during `check`, and a tool that
prints without end is stopped at the output cap with a truncated result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpudoctor import children
from gpudoctor.probes.runner import command_issue, run_command
from tests.support.hostile import bounded


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; init reaps it


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for pid in left:  # a failing test leaves nothing running
        os.kill(pid, signal.SIGKILL)
    return left


def _hung_tool(folder: Path, name: str, pids: Path) -> None:
    """A tool that starts a grandchild, says both pids, and hangs."""
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f'#!/bin/sh\nsleep 300 &\necho "$$ $!" > {pids}\nwait\n')
    tool.chmod(0o755)


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_check_leaves_no_tool_running(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    pids = tmp_path / "pids"
    # ldconfig is run by every `check` (the CUDA libraries probe); a hung one stands for any.
    _hung_tool(tmp_path / "bin", "ldconfig", pids)
    env = {
        **os.environ,
        "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
        "DOCKER_HOST": "tcp://127.0.0.1:9",
    }
    check = subprocess.Popen(
        [sys.executable, "-m", "gpudoctor", "check"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # the test's own group is not signalled
    )
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids.exists(), "the tool never ran"
        started = [int(p) for p in pids.read_text().split()]
        check.send_signal(sent)
        rc = check.wait(timeout=20)
        stderr = check.stderr.read().decode() if check.stderr else ""
    finally:
        if check.poll() is None:
            os.killpg(check.pid, signal.SIGKILL)
            check.wait()
    assert rc == code, stderr
    assert "Traceback" not in stderr
    assert _wait_gone(started, 5) == []


def test_a_tool_that_prints_without_end_is_stopped_at_the_cap(tmp_path: Path) -> None:
    with bounded(30, 8 * 6):
        result = run_command(["yes", "x" * 1000])
    assert result.error == "truncated"
    assert result.rc is None
    assert len(result.stdout) <= children.MAX_OUTPUT
    assert result.stdout.startswith("x" * 1000)
    issue = command_issue("p", "f", result)
    assert issue.code == "command-output-truncated"
    assert "printed more than 8 MiB" in issue.reason
    assert children.live_count() == 0


def test_a_tool_that_ends_normally_is_read_whole_and_untracked(tmp_path: Path) -> None:
    result = run_command(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (result.rc, result.stdout, result.stderr, result.error) == (3, "out\n", "err\n", None)
    assert children.live_count() == 0


def test_kill_all_kills_every_tracked_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    _hung_tool(tmp_path / "bin", "hang", pids)
    child = children.start([str(tmp_path / "bin" / "hang")])
    deadline = time.monotonic() + 10
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    started = [int(p) for p in pids.read_text().split()]
    assert children.live_count() == 1
    assert children.kill_all() == 1
    assert children.live_count() == 0
    assert child.returncode is not None
    assert _wait_gone(started, 5) == []


def test_a_deep_child_that_prints_without_end_is_stopped_and_recorded(tmp_path: Path) -> None:
    from gpudoctor.probes import deep

    with bounded(30, 8 * 6):
        child = deep.run_child(["yes", "y" * 100], dict(os.environ), 30)
    assert child.truncated
    assert child.rc is None
    facts = deep.interpret("torch", child, python=sys.executable, timeout_s=30)
    assert facts.outcome == "crashed"
    assert "printed more than 8 MiB" in (facts.error or "")
    assert children.live_count() == 0
