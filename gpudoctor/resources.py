"""Where the shipped matrix, templates and docs live: the one place that knows the three layouts.

In a source checkout they sit at the top level of the repository (`matrices/`, `templates/`,
`docs/`); in an installed wheel the build copies them to `gpudoctor/_data/` (pyproject's
force-include); in the single-file `gpudoctor.pyz` (scripts/build_pyz.py) they are entries
`gpudoctor/_data/...` of the zip Python runs. Their users need real files (the Docker build
context, a template run by another interpreter, the matrix cache's stat), so the zip's data are
unpacked, read through the archive zipimport loaded this module from, once per content into the
per-user cache (user_cache.py: a folder only this user can write), else into a temporary folder
removed at exit. A finding's `docs` field ("docs/findings.md#CODE") and the error hints that
name docs/*.md are relative to the folder holding `docs/`: `data_root()`.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from gpudoctor import __version__, user_cache

if TYPE_CHECKING:
    import zipfile

_PACKAGE = Path(__file__).resolve().parent
_ZIP_DATA = "gpudoctor/_data/"


def _first_existing(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    unpacked = _unpacked_zip_data()
    if unpacked is not None and (unpacked / name).is_dir():
        return unpacked / name
    # Neither exists only in a broken install; say where we looked.
    raise FileNotFoundError(f"gpudoctor data folder {name!r} not found next to {_PACKAGE}")


@functools.lru_cache(maxsize=1)
def _unpacked_zip_data() -> Path | None:
    """The zip's gpudoctor/_data/ as a folder on disk, or None when not running from a zip."""
    archive = getattr(__spec__.loader, "archive", None)  # zipimport names its zip file
    if not isinstance(archive, str):
        return None
    import zipfile

    with zipfile.ZipFile(archive) as zipped:
        members = sorted(
            (i for i in zipped.infolist() if i.filename.startswith(_ZIP_DATA) and not i.is_dir()),
            key=lambda i: i.filename,
        )
        # The key is the data's content (the CRCs the zip already holds: nothing is read), so a
        # rebuilt or moved .pyz with the same data reuses the folder.
        listing = "".join(f"{i.filename}\0{i.CRC}\0{i.file_size}\n" for i in members)
        name = f"pyz-data-{__version__}-{zlib.crc32(listing.encode()):08x}-{len(members)}"
        base = user_cache.private_folder()
        if base is not None:
            target = base / name
            if user_cache.private(target, is_folder=True):
                return target
            try:
                return _unpack(zipped, members, base, name)
            except OSError:  # a full or read-only cache: this run's own copy instead
                pass
        try:
            return _unpack(zipped, members, None, name)
        except OSError as exc:
            reason = f"cannot unpack gpudoctor's data from {archive}: {exc}"
            raise FileNotFoundError(reason) from exc


def _unpack(
    zipped: zipfile.ZipFile, members: list[zipfile.ZipInfo], base: Path | None, name: str
) -> Path:
    """Write the members into a fresh private folder, then rename it into place (a reader
    never sees half of it; a parallel run that got there first wins)."""
    import tempfile

    staging = Path(tempfile.mkdtemp(prefix=".pyz-data-", dir=base))  # 0700
    try:
        for info in members:
            relative = info.filename[len(_ZIP_DATA) :]
            if relative.startswith("/") or ".." in relative.split("/"):
                continue  # never outside the folder, whatever the archive says
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(zipped.read(info))
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if base is not None:
        target = base / name
        try:
            os.replace(staging, target)
        except OSError:  # it exists: another run renamed its copy first
            if user_cache.private(target, is_folder=True):
                shutil.rmtree(staging, ignore_errors=True)
                return target
        else:
            _prune(base, target)
            return target

    atexit.register(shutil.rmtree, staging, True)  # no usable cache folder: this run only
    return staging


def _prune(base: Path, kept: Path) -> None:
    """Drop the data of other .pyz builds unpacked over a week ago (as the matrix cache does)."""
    try:
        week_ago = kept.stat().st_mtime - 7 * 86400
        for old in base.glob("pyz-data-*"):
            if old != kept and old.stat().st_mtime < week_ago:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # a parallel prune got there first: nothing to do
        return


def matrices_dir() -> Path:
    return _first_existing("matrices")


def default_matrix_path() -> Path:
    return matrices_dir() / "compat.toml"


def templates_dir() -> Path:
    return _first_existing("templates")


def docs_dir() -> Path:
    return _first_existing("docs")


def data_root() -> Path:
    """The folder a `docs/...` reference is relative to (the checkout, the wheel's
    gpudoctor/_data, or the unpacked data of gpudoctor.pyz)."""
    return docs_dir().parent
