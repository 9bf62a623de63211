"""One framework release as the index serves it: which Pythons have Linux x86_64 wheels, and the
facts of one of those wheels (METADATA, torch/version.py, optionally its fatbins)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from gpudoctor import versions
from gpudoctor.netread import METADATA_CAP, Client
from gpudoctor.wheels import remote
from gpudoctor.wheels.index import IndexFile
from gpudoctor.wheels.wheel import WheelFacts, parse_metadata, python_tag, read_wheel

if TYPE_CHECKING:
    from gpudoctor.versions import Version

# Linux x86_64 wheels: the builds gpudoctor's images install.
_LINUX_X86_64 = re.compile(r"^(manylinux\w*_x86_64|linux_x86_64)$")


@dataclass(frozen=True)
class ReleaseWheels:
    project: str
    version: Version  # with its local tag, if any ("2.14.1+cu130")
    wheels: tuple[IndexFile, ...]  # Linux x86_64, CPython, not yanked

    @property
    def pythons(self) -> tuple[str, ...]:
        found = {python_tag(w.filename) for w in self.wheels}
        return tuple(sorted((p for p in found if p), key=versions.sort_key))

    def representative(self) -> IndexFile:
        """The wheel read for the release's facts: the newest CPython's (all carry the same
        METADATA pins and libraries; only the Python extension differs)."""

        def newest(w: IndexFile) -> int:
            tag = python_tag(w.filename)
            return versions.numeric(tag)[1] if tag else -1

        return max(self.wheels, key=newest)


def releases(project: str, files: Iterable[IndexFile]) -> dict[Version, ReleaseWheels]:
    """Final releases with Linux x86_64 CPython wheels, by version (local tags kept apart)."""
    grouped: dict[Version, list[IndexFile]] = {}
    for f in files:
        if f.yanked or not f.filename.endswith(".whl"):
            continue
        try:
            _name, version, _build, tags = parse_wheel_filename(f.filename)
        except InvalidWheelFilename:
            continue
        if version.is_prerelease or version.is_devrelease:
            continue
        linux = (_LINUX_X86_64.match(t.platform) and t.interpreter.startswith("cp") for t in tags)
        if not any(linux):
            continue
        grouped.setdefault(version, []).append(f)
    return {v: ReleaseWheels(project, v, tuple(ws)) for v, ws in grouped.items()}


def read(client: Client, wheel: IndexFile, *, fatbins: bool = False) -> WheelFacts:
    """A wheel's facts: the PEP 658 metadata file when served and nothing else is needed, else
    the wheel itself through range requests (a few requests; the whole CUDA library for
    `fatbins`)."""
    if wheel.metadata_url and not fatbins and not _may_have_version_py(wheel):
        body, _type, _url = remote.get(client, wheel.metadata_url, cap=METADATA_CAP)
        name, version, requires_python, requires_dist = parse_metadata(
            body.decode("utf-8", "replace")
        )
        return WheelFacts(wheel.filename, name, version, requires_python, requires_dist)
    # A file: wheel (from a file: index only) goes through the same reader: a regular file,
    # never a FIFO or device planted where the link points.
    with remote.RangeFile(client, wheel.url) as stream:
        return read_wheel(stream, wheel.filename, fatbins=fatbins)  # type: ignore[arg-type]


def _may_have_version_py(wheel: IndexFile) -> bool:
    # torch/version.py names the CUDA a build was made with; only torch wheels carry it.
    return wheel.filename.startswith("torch-")
