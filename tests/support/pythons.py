"""The CPython interpreters on this machine that gpudoctor supports: pyenv's (CI's source of
several versions side by side), else `python3.X` on PATH, newest patch release per minor."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

# The minors gpudoctor supports and the tests try; 3.14 counts once an interpreter exists.
SUPPORTED_MINORS = (9, 10, 11, 12, 13, 14)


def _pyenv_versions() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"


def find_python(minor: int) -> Path | None:
    """The newest CPython 3.`minor` from pyenv, else `python3.minor` from PATH; None if none."""
    best: tuple[int, Path] | None = None
    for exe in _pyenv_versions().glob(f"3.{minor}.*/bin/python3"):
        match = re.fullmatch(rf"3\.{minor}\.(\d+)", exe.parents[1].name)
        if match and os.access(exe, os.X_OK) and (best is None or int(match[1]) > best[0]):
            best = (int(match[1]), exe)
    if best is not None:
        return best[1]
    found = shutil.which(f"python3.{minor}")
    return Path(found) if found else None


def find_old_python() -> Path | None:
    """A CPython older than 3.9 (3.8, else 3.7), for the too-old paths; None when there is none."""
    for minor in (8, 7):
        found = find_python(minor)
        if found is not None:
            return found
    return None
