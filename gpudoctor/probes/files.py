"""Reading host files under a root.

Every probe reads `root / "proc/cmdline"`, never "/proc/cmdline", so that tests point the whole
probe at a recorded tree (tests/data/sysfs/<scenario>/)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path


def under(root: Path, host_path: str) -> Path:
    """The file that stands for absolute host path `host_path` below `root`."""
    return root / host_path.lstrip("/")


def host_path(root: Path, path: Path) -> str:
    """The host's name for `path` below `root` ("/dev/nvidia0"), as facts record it."""
    try:
        return "/" + path.relative_to(root).as_posix().lstrip("/")
    except ValueError:
        return str(path)


def read_text(path: Path, limit: int = 1 << 20) -> str | None:
    """File contents, or None when it is missing, unreadable (sysfs reads may fail with EIO) or
    not a regular file: a FIFO or device planted where a file should be would block the read
    forever (opened non-blocking, so that even the open cannot hang)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "r", encoding="utf-8", errors="replace", closefd=False) as fh:
            return fh.read(limit)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def read_first_line(path: Path) -> str | None:
    text = read_text(path, limit=4096)
    if text is None:
        return None
    line = text.splitlines()[0].strip() if text.strip() else ""
    return line or None


def read_int(path: Path, base: int = 10) -> int | None:
    line = read_first_line(path)
    if line is None:
        return None
    try:
        return int(line, base)
    except ValueError:
        return None


def link_name(path: Path) -> str | None:
    """Basename of a symlink's target (works for dangling links, as in recorded trees)."""
    try:
        return os.path.basename(os.readlink(path).rstrip("/")) or None
    except OSError:
        return None


def list_dir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts nvidia2 before nvidia10."""
    return tuple(
        (0, int(part)) if part.isdecimal() else (1, part) for part in re.split(r"(\d+)", text)
    )
