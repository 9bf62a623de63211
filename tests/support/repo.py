"""Copies of this repository as a user gets it: its tracked files (with their working-tree
content), as a plain folder or as a git repository that pip can install from by URL and ref."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def copy_tracked(target: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        source = ROOT / os.fsdecode(name)
        if source.is_file() and not source.is_symlink():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))


def _git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=gpudoctor tests", "-c", "user.email=tests@localhost"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=repo, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def git_repository(target: Path, tag: str) -> tuple[str, str]:
    """A git repository of the tracked files with `tag` on its first commit and one more commit
    after it (so installing the tag differs from installing the branch's head): (file:// URL,
    the tagged commit's id)."""
    copy_tracked(target)
    _git(target, "init", "-q", "-b", "main")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "gpudoctor as tested")
    _git(target, "tag", tag)
    tagged = _git(target, "rev-parse", "HEAD")
    (target / "LATER.txt").write_text("a commit after the tag\n", encoding="utf-8")
    _git(target, "add", "LATER.txt")
    _git(target, "commit", "-q", "-m", "after the tag")
    return target.as_uri(), tagged
