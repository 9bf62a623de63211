"""Write a rendered image set into its output folder, and remove what a previous render left.

Ownership is a manifest, `.gpudoctor-manifest`, listing every file the last render wrote. Only
files listed there are ever removed (a stale image's Dockerfile, requirements, verify script),
then the folders that became empty; a user's own file keeps its folder alive and is reported.
A file in the way that the manifest does not list is never overwritten unless it already holds
exactly what would be written. Nothing outside the output folder is touched, symlinks included.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gpudoctor.errors import UsageError
from gpudoctor.safe_write import SymlinkInTree, write_atomic

MANIFEST = ".gpudoctor-manifest"
_HEADER = (
    "# Files written by `gpudoctor render --all`; it removes only these when they go stale.\n"
    "# Do not edit.\n"
)


@dataclass(frozen=True)
class TreeResult:
    changed: tuple[str, ...]  # files written because they were new or differed
    removed: tuple[str, ...]  # stale files removed
    kept: tuple[str, ...]  # stale folders kept: they hold files gpudoctor did not write

    @property
    def removed_images(self) -> int:
        return sum(PurePosixPath(p).name == "Dockerfile" for p in self.removed)


def write_tree(out: Path, files: Mapping[str, bytes]) -> TreeResult:
    """Make `out` hold `files` (relative posix path -> bytes) and nothing stale of ours.

    Raises:
        UsageError: `out` cannot be written, its manifest is malformed, or a file gpudoctor did
            not write stands where a rendered file goes.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        owned = read_manifest(out)
        _refuse_foreign(out, files, owned)
        # The union first: a run cut short still knows every file it may have written.
        _write_if_changed(out, MANIFEST, manifest_text(owned | set(files)).encode("utf-8"))
        changed = tuple(p for p in sorted(files) if _write_if_changed(out, p, files[p]))
        removed, kept = _remove_stale(out, owned - set(files), files)
        _write_if_changed(out, MANIFEST, manifest_text(files).encode("utf-8"))
    except SymlinkInTree as exc:
        raise UsageError(
            f"{exc.filename}: a folder on the way is a symlink, and render --all writes only "
            f"inside {out}",
            hint="replace the symlinked folder with a real one, or render into another --out",
        ) from None
    except OSError as exc:
        where = exc.filename or out
        raise UsageError(
            f"cannot write {where}: {exc.strerror or exc}",
            hint="choose a writable folder with --out",
        ) from None
    return TreeResult(changed=changed, removed=removed, kept=kept)


def manifest_text(paths: Iterable[str]) -> str:
    return _HEADER + "".join(f"{p}\n" for p in sorted(paths))


def read_manifest(out: Path) -> set[str]:
    """The files a previous render wrote; empty when there is no manifest (nothing is ours)."""
    path = out / MANIFEST
    if not path.is_file() or path.is_symlink():
        return set()
    owned: set[str] = set()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(
            f"{path} is not UTF-8 text, so it cannot say which files gpudoctor wrote",
            hint=f"restore {path} (git checkout) or delete it; without it nothing is removed",
        ) from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        pure = PurePosixPath(line)
        if pure.is_absolute() or ".." in pure.parts or "\\" in line or str(pure) != line:
            raise UsageError(
                f"{path} line {number}: {line!r} is not a plain path inside {out}",
                hint=f"restore {path} (git checkout) or delete it; without it nothing is removed",
            )
        owned.add(line)
    return owned


def _refuse_foreign(out: Path, files: Mapping[str, bytes], owned: set[str]) -> None:
    foreign = [
        rel
        for rel, content in sorted(files.items())
        if rel not in owned and _occupied(out / rel, content)
    ]
    if foreign:
        shown = ", ".join(str(out / p) for p in foreign[:3])
        more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        raise UsageError(
            f"{shown}{more}: not written by gpudoctor, and render --all would overwrite them",
            hint=f"move them away, or render into another folder (--out); gpudoctor overwrites "
            f"only files listed in {out / MANIFEST} (restore it if it was deleted)",
        )


def _occupied(path: Path, content: bytes) -> bool:
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return True
    return path.is_file() and path.read_bytes() != content


def _write_if_changed(out: Path, rel: str, content: bytes) -> bool:
    """Write (atomically, never through a symlink below `out`) unless the file already holds
    `content`; True when written."""
    path = out / rel
    if path.is_file() and not path.is_symlink() and path.read_bytes() == content:
        return False
    write_atomic(path, content, root=out)
    return True


def _remove_stale(
    out: Path, stale: set[str], live: Iterable[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    root = out.resolve()
    removed: list[str] = []
    for rel in sorted(stale):
        path = out / rel
        # Only a regular file that really lies inside `out` (no symlinked folder on the way).
        if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(root):
            continue
        path.unlink(missing_ok=True)  # a concurrent render may have removed it first
        removed.append(rel)
    live_folders = {p for rel in live for p in PurePosixPath(rel).parents}
    kept: set[str] = set()
    folders = {p for rel in removed for p in PurePosixPath(rel).parents if p.parts}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        path = out / folder
        if not path.is_dir() or path.is_symlink():
            continue
        if not any(path.iterdir()):
            with contextlib.suppress(OSError):  # a concurrent render may be filling it again
                path.rmdir()
        elif folder not in live_folders and not any(
            PurePosixPath(k).is_relative_to(folder) for k in kept
        ):
            kept.add(folder.as_posix())  # the deepest folder that holds a user's file
    return tuple(removed), tuple(sorted(kept))
