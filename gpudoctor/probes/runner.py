"""Running outside commands for probes: bounded in time, never raising.

Probes take a `Runner` so that tests hand them canned outputs (the shape of pytorch
collect_env's `run_lambda`); only `collect_facts` wires the real `run_command`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from gpudoctor import children
from gpudoctor.facts import ProbeIssue

DEFAULT_TIMEOUT_S = 5.0
# Non-root users often lack /sbin on PATH, yet ldconfig lives there on most distributions.
_SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")


@dataclass(frozen=True)
class CommandResult:
    """What one command did. `error` is set when it did not run to completion:
    "not-found", "timeout", "truncated" (it printed more than children.MAX_OUTPUT and was
    killed; stdout and stderr hold the part read) or "os-error"; `rc` is then None."""

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
        if self.error == "truncated":
            return f"`{cmd}` printed more than {children.MAX_OUTPUT >> 20} MiB and was stopped"
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
    """The real runner: bounded in time and output; every failure becomes a value.

    The tool runs in its own process group (gpudoctor/children.py): on timeout, on too much
    output and on any way out of gpudoctor the whole group is killed, so that a hung tool's
    children (a wrapper script's `sleep`, a daemon it forked) die with it."""
    args = tuple(argv)
    exe = _resolve(args[0])
    if exe is None:
        return CommandResult(args, None, error="not-found")
    try:
        # A fixed locale keeps tool output parseable (nvcc, ldconfig print localized text).
        child = children.start([exe, *args[1:]], env={**os.environ, "LC_ALL": "C"})
    except OSError as exc:
        return CommandResult(args, None, stderr=str(exc), error="os-error")
    done = children.capture(child, timeout_s)
    out, err = _text(done.stdout), _text(done.stderr)
    if done.truncated:
        return CommandResult(args, None, out, err, error="truncated")
    if done.timed_out:
        return CommandResult(args, None, error="timeout")
    return CommandResult(args, done.returncode, out, err)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


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
        code = {
            "not-found": "command-not-found",
            "timeout": "command-timeout",
            "truncated": "command-output-truncated",
        }.get(result.error or "", "command-failed")
    return ProbeIssue(probe=probe, field=field, code=code, reason=result.describe())
