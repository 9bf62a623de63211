"""Small wording helpers every output shares."""

from __future__ import annotations

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
