"""Child processes gpudoctor starts (nvidia-smi, nvcc, ldconfig, the --deep probe): each runs
in its own session, is tracked while it lives, and is killed with its whole process group on
every way out: its timeout, too much output, an exception, Ctrl-C (SIGINT) or SIGTERM.

Probes run in daemon threads, so an interrupt reaches the main thread while a probe thread still
waits on a hung tool; the CLI then calls `kill_all`, which kills every tracked group, and exits.
Output is read incrementally from both pipes with a cap (`MAX_OUTPUT`): a tool that prints
hundreds of megabytes is killed at the cap and its result says it was cut (`truncated`),
instead of being held in memory whole.

Neutral: the probes use it to run tools, the CLI to clean up on the way out.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import FrameType

MAX_OUTPUT = 8 << 20  # bytes of stdout and stderr together
# How long the --deep probe's child (one framework's import and kernel) may run when
# --deep-timeout does not say. Here, in a module every start loads, so that the probe and the
# command line's default share it without building the command line importing a probe.
DEEP_TIMEOUT_S = 60.0
_READ = 1 << 16
_LIVE: set[subprocess.Popen[bytes]] = set()
_LOCK = threading.RLock()
_CHANGED = threading.Condition(_LOCK)


class _State:
    starting = 0  # Popen calls in flight
    closing = False  # kill_all(closing=True) ran: the process is on its way out


_STATE = _State()


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like KeyboardInterrupt (a BaseException, so no `except
    Exception` of a probe swallows it), and the CLI exits 143 after the same cleanup."""


@dataclass(frozen=True)
class Captured:
    returncode: int | None  # None: killed (timed out or cut)
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    truncated: bool = False  # printed more than the cap; the first `cap` bytes are kept


def start(argv: Sequence[str], env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start `argv` in its own session (its own process group), tracked until `capture` ends.

    A start in flight when `kill_all` runs is waited for and then killed: the child may already
    run (and fork) before Popen returns to this thread."""
    with _CHANGED:
        if _STATE.closing:
            raise OSError("gpudoctor is exiting: no new command is started")
        _STATE.starting += 1
    try:
        child = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=None if env is None else dict(env),
            start_new_session=True,
        )
    except BaseException:
        with _CHANGED:
            _STATE.starting -= 1
            _CHANGED.notify_all()
        raise
    with _CHANGED:
        _LIVE.add(child)
        _STATE.starting -= 1
        _CHANGED.notify_all()
        closing = _STATE.closing
    if closing:  # kill_all(closing=True) gave up waiting for this one
        kill_group(child)
    return child


def capture(child: subprocess.Popen[bytes], timeout_s: float, cap: int = MAX_OUTPUT) -> Captured:
    """Read the child's output until it exits, its deadline passes or its output passes `cap`;
    never leaves it (or its group) running, whatever happens here."""
    deadline = time.monotonic() + timeout_s
    out, err = bytearray(), bytearray()
    try:
        ended = _read(child, out, err, deadline, cap)
        if ended == "eof":
            try:
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                ended = "timeout"
        if ended != "eof":
            kill_group(child)
    except BaseException:
        kill_group(child)
        raise
    finally:
        _close(child)
        with _LOCK:
            _LIVE.discard(child)
    if ended == "cap":
        keep_out = min(len(out), cap)
        return Captured(None, bytes(out[:keep_out]), bytes(err[: cap - keep_out]), truncated=True)
    if ended == "timeout":
        return Captured(None, bytes(out), bytes(err), timed_out=True)
    return Captured(child.returncode, bytes(out), bytes(err))


def _read(
    child: subprocess.Popen[bytes], out: bytearray, err: bytearray, deadline: float, cap: int
) -> str:
    """Both pipes into `out` and `err` until both end ("eof"), the deadline ("timeout") or the
    cap ("cap")."""
    with selectors.DefaultSelector() as selector:
        for stream, buffer in ((child.stdout, out), (child.stderr, err)):
            if stream is not None:
                selector.register(stream, selectors.EVENT_READ, buffer)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            for key, _ in selector.select(timeout=left):
                data = os.read(key.fd, _READ)
                if data:
                    key.data.extend(data)
                else:
                    selector.unregister(key.fileobj)
            if len(out) + len(err) > cap:
                return "cap"
    return "eof"


def kill_group(child: subprocess.Popen[bytes]) -> None:
    """Kill `child`'s process group (it leads its own session) and reap `child`."""
    with contextlib.suppress(OSError):
        os.killpg(child.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        child.kill()
    _close(child)  # pipes a grandchild that escaped the group holds must not block the reap
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5)  # a process in uninterruptible sleep (a stuck driver) may linger


def kill_all(*, closing: bool = False) -> int:
    """Kill every tracked child's group; how many. Starts in flight are waited for (briefly)
    so that a child already running is not missed. `closing` (the process is exiting): no
    command starts after this."""
    with _CHANGED:
        _STATE.closing = _STATE.closing or closing
        _CHANGED.wait_for(lambda: _STATE.starting == 0, timeout=2.0)
        live = list(_LIVE)
        _LIVE.clear()
    for child in live:
        kill_group(child)
    return len(live)


def live_count() -> int:
    with _LOCK:
        return len(_LIVE)


def _close(child: subprocess.Popen[bytes]) -> None:
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _terminated(_signum: int, _frame: FrameType | None) -> None:
    raise Terminated


def install_signal_handlers() -> None:
    """SIGTERM unwinds the main thread like Ctrl-C does (the CLI cleans up, then exits 143).
    Only the main thread may set handlers; elsewhere (tests calling the CLI from a thread)
    nothing changes."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)
