"""Small wording helpers every output shares."""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Sequence


def plural(n: int, word: str) -> str:
    """ "1 error", "3 errors"."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def last_line(text: str | None, default: str = "") -> str:
    """The last non-blank line: a traceback's exception, a crash's final word."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else default


def gib(n_bytes: int | None) -> str:
    if n_bytes is None:
        return "unknown"
    return f"{n_bytes / 2**30:.1f} GiB"


def gpu_label(indices: Sequence[int]) -> str:
    """ "GPU 3", "GPU 0-7", "GPU 0, 2, 5": the subject of a finding grouped over GPUs."""
    idx = sorted(indices)
    if len(idx) == 1:
        return f"GPU {idx[0]}"
    if idx == list(range(idx[0], idx[-1] + 1)):
        return f"GPU {idx[0]}-{idx[-1]}"
    return "GPU " + ", ".join(str(i) for i in idx)


def exit_text(rc: int | None) -> str:
    """How the child ended: "was killed by SIGSEGV", "exited 139 (128 + SIGSEGV)"."""
    if rc is None:
        return "could not start"
    if rc < 0:
        return f"was killed by {_signal_name(-rc)}"
    if rc > 128:  # the shell's (and some launchers') way to pass on a death by signal
        return f"exited {rc} (128 + {_signal_name(rc - 128)})"
    return f"exited {rc}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def start_docker(systemd: bool | None) -> str:
    """How to start the Docker daemon on a host: `systemctl` only where systemd is the init
    (/run/systemd/system exists, sd_booted(3)); containers and WSL often have none."""
    if systemd:
        return "`sudo systemctl start docker`"
    if systemd is None:
        return "`sudo systemctl start docker` where systemd runs, else `sudo dockerd &`"
    return "`sudo dockerd &` (no systemd here), or the docker service of this host's init system"


def connection_failure(exc: BaseException) -> str:
    """Why a connection failed, in words: the operating system's reason found anywhere in the
    chain requests/urllib3/docker-py wrap it in (their own texts are nested reprs, cut short by
    one-line messages), never an exception's class name."""
    import socket

    seen: list[BaseException] = []
    todo: list[object] = [exc]
    while todo:
        item = todo.pop(0)
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        todo += [item.__cause__, item.__context__, getattr(item, "reason", None), *item.args]
    for item in seen:
        if isinstance(item, socket.gaierror):
            return "the host name does not resolve"
        if isinstance(item, OSError) and item.errno is not None:
            words = {
                errno.ENOENT: "no socket there (no daemon listening)",
                errno.ECONNREFUSED: "connection refused (nothing listens there)",
                errno.EACCES: "permission denied",
                errno.EPERM: "permission denied",
                errno.ETIMEDOUT: "no answer in time",
            }
            return words.get(item.errno) or os.strerror(item.errno).lower()
    if any(isinstance(i, TimeoutError) or "timed out" in str(i).lower() for i in seen):
        return "no answer in time"
    first = last_line(str(exc).splitlines()[0] if str(exc).strip() else "")
    # A plain sentence (docker-py's own words) is kept; nested reprs of requests and urllib3,
    # which one-line messages cut short, are not.
    return (
        first[:200] if first and not any(c in first for c in "()<>[]") else "the connection failed"
    )
