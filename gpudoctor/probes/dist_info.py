"""Installed distributions read from their *.dist-info / *.egg-info folders, without
importlib.metadata: importing it (its `email` parser) slows every `check` start, and the
probes read a handful of header fields of a few distributions.

`DistInfo` offers the part of `importlib.metadata.Distribution` the probes use (`metadata[...]`,
`version`, `requires`, `locate_file`; `files` from a RECORD), so a test may hand either in
(`Dist`). METADATA (PKG-INFO in an egg-info) is read as `email.parser` reads headers under the
compat32 policy that importlib.metadata uses: `Name: value` lines up to the first line that is
not one, continuation lines (starting with a blank or a tab) kept as they are, the first of a
repeated header wins.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from gpudoctor import versions
from gpudoctor.probes.files import list_dir

_HEADER = re.compile(r"[\041-\071\073-\176]+:")  # email.feedparser's field name, then ':'
# importlib.metadata's Distribution.files leaves out RECORD entries whose file is missing from
# CPython 3.12 on (importlib_metadata's skip_missing_files); before, it lists them all.
_SKIPS_MISSING_FILES = sys.version_info >= (3, 12)


class Dist(Protocol):
    """What the probes read of an installed distribution (importlib.metadata's shape)."""

    @property
    def metadata(self) -> Any: ...
    @property
    def version(self) -> str: ...
    @property
    def requires(self) -> list[str] | None: ...
    def locate_file(self, path: str) -> Any: ...


class Headers:
    """METADATA's header fields; a missing one reads as None, as in importlib.metadata."""

    def __init__(self, text: str) -> None:
        self._items: list[tuple[str, str]] = []
        lines = text.splitlines(keepends=True)
        for line in lines:
            if line[:1] in (" ", "\t") and self._items:
                name, value = self._items[-1]
                self._items[-1] = (name, value + line)
                continue
            match = _HEADER.match(line)
            if match is None:
                break  # a blank line or the body: the headers are over
            self._items.append((line[: match.end() - 1], line[match.end() :].lstrip(" \t")))
        self._items = [(name, value.rstrip("\r\n")) for name, value in self._items]

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, name: str) -> str | None:
        return next((v for k, v in self._items if k.lower() == name.lower()), None)

    def get_all(self, name: str) -> list[str] | None:
        found = [v for k, v in self._items if k.lower() == name.lower()]
        return found or None


class DistInfo:
    """One *.dist-info or *.egg-info (folder, or a single PKG-INFO file named *.egg-info)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._headers: Headers | None = None

    def read_text(self, filename: str) -> str | None:
        try:
            return self._path.joinpath(filename).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    @property
    def metadata(self) -> Headers:
        if self._headers is None:
            text = self.read_text("METADATA") or self.read_text("PKG-INFO") or self.read_text("")
            self._headers = Headers(text or "")
        return self._headers

    @property
    def name(self) -> str | None:
        return self.metadata["Name"]

    @property
    def version(self) -> str:
        # "" where a broken METADATA lacks it: importlib.metadata returns None there, against
        # its own `str` annotation, and the facts' version fields are strings
        return self.metadata["Version"] or ""

    @property
    def requires(self) -> list[str] | None:
        """Requires-Dist; of an egg-info's requires.txt the requirement lines (the section
        headers, which importlib.metadata turns into markers, left out: callers read names)."""
        listed = self.metadata.get_all("Requires-Dist")
        if listed is not None:
            return listed
        text = self.read_text("requires.txt")
        if text is None:
            return None
        return [s for s in (ln.strip() for ln in text.splitlines()) if s and s[0] not in "[#"]

    def locate_file(self, path: str) -> Path:
        return self._path.parent / path

    @property
    def files(self) -> list[str] | None:
        """The installed files' paths relative to the site folder, read from RECORD as
        importlib.metadata reads it (None without one, such as an egg-info of `setup.py
        install`): each line through `csv.reader` (a path with a comma or a quote in it is
        quoted, its quotes doubled), the first field normalized as a PurePosixPath (importlib's
        PackagePath) normalizes it, and, on Python 3.12 and later, the entries whose file is
        missing left out (`skip_missing_files`: a `pip install --target` RECORD lists scripts
        under ../../bin, an image may have dropped a .pyc); Python 3.9-3.11 keep them. Following
        the running Python keeps DistInfo interchangeable with importlib's Distribution (Dist).
        A blank line, on which importlib raises TypeError, is passed over."""
        text = self.read_text("RECORD")
        if not text:
            return None
        import csv

        paths = [str(PurePosixPath(row[0])) for row in csv.reader(text.splitlines()) if row]
        if _SKIPS_MISSING_FILES:
            # os.path.exists: False, not an error, where a folder on the way is unreadable
            paths = [path for path in paths if os.path.exists(self.locate_file(path))]
        return paths


def dist_folders(paths: Sequence[str | Path]) -> Iterator[tuple[str, DistInfo]]:
    """(the folder name's distribution part, normalized; the DistInfo) for each *.dist-info
    and *.egg-info on `paths`, in path order."""
    for entry in paths:
        folder = Path(entry or ".")
        for name in list_dir(folder):
            stem, dot, suffix = name.rpartition(".")
            if dot and suffix in ("dist-info", "egg-info"):
                yield versions.canonical_name(stem.split("-")[0]), DistInfo(folder / name)


def find(name: str, paths: Sequence[str | Path] | None = None) -> DistInfo | None:
    """The first distribution called `name` on `paths` (default: sys.path), found as
    importlib.metadata.distribution(name) finds it: by the folder's name."""
    wanted = versions.canonical_name(name)
    paths = sys.path if paths is None else paths
    return next((dist for found, dist in dist_folders(paths) if found == wanted), None)
