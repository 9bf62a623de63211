"""Attack tests for the fleet's worker processes (gpudoctor/fleet_summary.py): SIGTERM or Ctrl-C
during a large fleet check terminates every worker, and a parent that dies without cleaning up
(SIGKILL) takes its workers with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# A judging process whose workers hang on every host: each worker writes its pid, then sleeps.
_SCRIPT = """
import os, sys, time
from pathlib import Path
from gpudoctor import children, fleet_summary

children.install_signal_handlers()
out = Path(sys.argv[1])

def hang(path, job):
    (out / str(os.getpid())).touch()
    time.sleep(300)

fleet_summary._judge = hang
files = [Path(f"host{i}.json") for i in range(fleet_summary.PARALLEL_FROM + 10)]
try:
    fleet_summary._judge_all(files, None)
except KeyboardInterrupt:
    sys.exit(130)
except children.Terminated:
    sys.exit(143)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(tmp_path: Path, script: str = _SCRIPT) -> tuple[subprocess.Popen[bytes], list[int]]:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: the fleet is judged in-process, without workers")
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), str(tmp_path)],
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = [int(p.name) for p in tmp_path.iterdir()]
    assert len(workers) >= 2, "the workers never started"
    return parent, workers


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after `seconds` (killed then, so a failing test leaves none)."""
    deadline = time.monotonic() + seconds
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_fleet_check_terminates_every_worker(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    parent, workers = _start(tmp_path)
    _signal_and_check(parent, workers, sent, code)


def _signal_and_check(
    parent: subprocess.Popen[bytes], workers: list[int], sent: signal.Signals, code: int
) -> None:
    """Signal the judging process: it exits with `code`, no traceback, and no worker stays."""
    try:
        parent.send_signal(sent)
        rc = parent.wait(timeout=20)
        stderr = parent.stderr.read().decode() if parent.stderr else ""
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
            parent.wait()
    assert rc == code, stderr
    assert "Traceback" not in stderr, stderr
    assert _wait_gone(workers, 10) == []


def test_workers_die_with_a_parent_killed_outright(tmp_path: Path) -> None:
    parent, workers = _start(tmp_path)
    os.kill(parent.pid, signal.SIGKILL)  # no cleanup can run
    parent.wait(timeout=20)
    assert _wait_gone(workers, 10) == []


# The same judging process, but each worker is slow to start: it writes its pid before its
# initializer has run, then waits a second. A signal to the parent in that second stops the
# workers while they still hold what they were forked with.
_SLOW_START = _SCRIPT.replace(
    "fleet_summary._judge = hang",
    "fleet_summary._judge = hang\n"
    "started = fleet_summary._worker_start\n"
    "def slow_start(job):\n"
    "    (out / str(os.getpid())).touch()\n"
    "    time.sleep(1)\n"
    "    started(job)\n"
    "fleet_summary._worker_start = slow_start\n",
)


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_workers_start_leaves_no_traceback(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    """Workers are forked with Ctrl-C and SIGTERM blocked, and unblock them only once their
    initializer has set their own handling: one stopped before that dies quietly, where it
    used to raise the parent's handler's exception in its initializer."""
    parent, workers = _start(tmp_path, _SLOW_START)
    _signal_and_check(parent, workers, sent, code)  # within the workers' slow second
