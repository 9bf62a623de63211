"""Small wording helpers every output shares."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """ "1 error", "3 errors"."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def last_line(text: str | None, default: str = "") -> str:
    """The last non-blank line: a traceback's exception, a crash's final word."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else default
