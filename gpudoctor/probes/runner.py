"""Running outside commands for probes: bounded in time, never raising.

Probes take a `Runner` so that tests hand them canned outputs (the shape of pytorch
collect_env's `run_lambda`); only `collect_facts` wires the real `run_command`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from gpudoctor.facts import ProbeIssue

DEFAULT_TIMEOUT_S = 5.0
# Non-root users often lack /sbin on PATH, yet ldconfig lives there on most distributions.
_SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")


@dataclass(frozen=True)
class CommandResult:
    """What one command did. `error` is set when it did not run to completion:
    "not-found", "timeout" or "os-error"; `rc` is then None."""

    argv: tuple[str, ...]
    rc: int | None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.rc == 0 and self.error is None

    def describe(self) -> str:
        """One line saying why the command gave nothing usable, for a ProbeIssue."""
        cmd = " ".join(self.argv)
        if self.error == "not-found":
            return f"`{cmd}`: command not found"
        if self.error == "timeout":
            return f"`{cmd}` timed out"
        if self.error is not None:
            return f"`{cmd}` could not run: {self.stderr.strip()[:200]}"
        if self.rc == 0:  # ran fine, but the caller found nothing it could parse
            head = self.stdout.strip().splitlines()[:1] or ["(no output)"]
            return f"`{cmd}` printed nothing recognisable: {head[0][:200]}"
        tail = (self.stderr.strip() or self.stdout.strip()).splitlines()[-1:] or [""]
        return f"`{cmd}` exited {self.rc}: {tail[0][:200]}"


class Runner(Protocol):
    def __call__(
        self, argv: Sequence[str], *, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> CommandResult: ...


def run_command(argv: Sequence[str], *, timeout_s: float = DEFAULT_TIMEOUT_S) -> CommandResult:
    """The real runner: subprocess with a timeout; every failure becomes a value."""
    args = tuple(argv)
    exe = _resolve(args[0])
    if exe is None:
        return CommandResult(args, None, error="not-found")
    try:
        # Its own process group (session): on timeout the whole group is killed, so that a
        # hung tool's children (a wrapper script's `sleep`, a daemon it forked) die with it.
        child = subprocess.Popen(
            [exe, *args[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            # A fixed locale keeps tool output parseable (nvcc, ldconfig print localized text).
            env={**os.environ, "LC_ALL": "C"},
        )
    except OSError as exc:
        return CommandResult(args, None, stderr=str(exc), error="os-error")
    try:
        out, err = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(child)
        return CommandResult(args, None, error="timeout")
    finally:
        if child.returncode is None:  # an exception in communicate: never leave it running
            kill_group(child)
    return CommandResult(
        args, child.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    )


def kill_group(child: subprocess.Popen[bytes]) -> None:
    """Kill `child`'s process group (it was started in its own session) and reap `child`."""
    with contextlib.suppress(OSError):
        os.killpg(child.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        child.kill()
    # Pipes held open by a grandchild that escaped the group must not block the reap.
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    child.wait()


def _resolve(name: str) -> str | None:
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    path = os.environ.get("PATH", os.defpath)
    return shutil.which(name, path=os.pathsep.join([path, *_SBIN_DIRS]))


def which(name: str, env: Mapping[str, str]) -> str | None:
    """`name` on the PATH of `env` (the probe's edge, not necessarily this process's)."""
    return shutil.which(name, path=env.get("PATH", os.defpath))


def command_issue(probe: str, field: str, result: CommandResult) -> ProbeIssue:
    if result.error is None and result.rc == 0:
        code = "command-output-unrecognised"
    else:
        code = {"not-found": "command-not-found", "timeout": "command-timeout"}.get(
            result.error or "", "command-failed"
        )
    return ProbeIssue(probe=probe, field=field, code=code, reason=result.describe())
