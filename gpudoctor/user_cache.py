"""The per-user cache folder (`$XDG_CACHE_HOME/gpudoctor`, else `~/.cache/gpudoctor`) and the
rule for trusting what lies in it.

It holds the validated matrix (matrix/cache.py) and, for the single-file `gpudoctor.pyz`, the
data files unpacked from it (resources.py). Both are code or facts gpudoctor acts on, so a file
there is trusted only when it and its folder belong to this user and nobody else can write them.
"""

from __future__ import annotations

import os
from pathlib import Path


def folder() -> Path | None:
    """The cache folder (not created here); None when its base is not an absolute path."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "gpudoctor"


def private(path: Path, *, is_folder: bool) -> bool:
    """Owned by this user and writable by nobody else (a file: not readable by others either)."""
    try:
        st = path.stat()
    except OSError:
        return False
    mode_ok = (st.st_mode & 0o022) == 0 if is_folder else (st.st_mode & 0o077) == 0
    return st.st_uid == os.getuid() and mode_ok


def private_folder() -> Path | None:
    """The cache folder, created 0700 when missing; None when it cannot be had or trusted."""
    base = folder()
    if base is None:
        return None
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:  # read-only or missing home
        return None
    return base if private(base, is_folder=True) else None
