"""A per-user disk cache of the validated matrix, so that `gpudoctor check` does not pay for
parsing and validating the 1,700-line TOML (and importing tomllib, the validators and
packaging's requirement parser) on every run (bench/README.md has both figures); and of the
signature catalogue, which `check --from` would otherwise parse and validate (every pattern
compiled and checked for backtracking) on every run.

The key is the matrix file's content digest plus the code that turns it into the model (the
gpudoctor version and the modification times of the matrix modules), so an edited matrix or an
upgraded gpudoctor is parsed and validated again. The cache is only an optimisation: any failure
to read or write it falls back to parsing. It is pickled, so it is trusted only in a folder and
file that belong to this user and that nobody else can write (user_cache.private).
GPUDOCTOR_NO_MATRIX_CACHE=1 turns it off.
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path
from typing import TypeVar

from gpudoctor import __version__, user_cache
from gpudoctor.matrix.model import Matrix
from gpudoctor.user_cache import private

_T = TypeVar("_T")

_CODE = (
    "model.py",
    "schema.py",
    "kinds.py",
    "reader.py",
    "load.py",
    "fields.py",
    "validate.py",
    "cache.py",
    "signatures.py",
    "regex_safety.py",
)


def _folder() -> Path | None:
    if os.environ.get("GPUDOCTOR_NO_MATRIX_CACHE"):
        return None

    return user_cache.folder()


def _code_stamps() -> list[str]:
    """What changes when the code that builds the model changes: its modules' modification
    times, or inside the single-file gpudoctor.pyz (a zip: no file to stat) the archive's."""
    archive = getattr(__spec__.loader, "archive", None)  # set by zipimport
    if isinstance(archive, str):
        return [str(os.stat(archive).st_mtime_ns)]
    here = Path(__file__).parent
    return [str((here / name).stat().st_mtime_ns) for name in _CODE]


def _key(path: Path, content: bytes) -> str:
    """A file name for this content read by this code (zlib, not hashlib: hashlib loads
    OpenSSL; a clash needs the same CRC and length of two matrices at one path)."""
    code = "\0".join((str(path), __version__, sys.version, *_code_stamps())).encode()
    return f"{zlib.crc32(code):08x}-{zlib.crc32(content):08x}-{len(content)}"


def load(path: Path, content: bytes) -> Matrix | None:
    """The cached matrix for this file content, or None."""
    return load_model(path, content, Matrix, "matrix")


def store(path: Path, content: bytes, matrix: Matrix) -> None:
    """Keep the validated matrix for the next run; silently nothing when that cannot be done."""
    store_model(path, content, matrix, "matrix")


def load_model(path: Path, content: bytes, kind: type[_T], name: str) -> _T | None:
    """The cached model of this data file's content (a `kind`, stored under `name`), or None."""
    folder = _folder()
    if folder is None:
        return None
    try:
        entry = folder / f"{name}-{_key(path, content)}.pickle"
        if not (private(folder, is_folder=True) and private(entry, is_folder=False)):
            return None
        import pickle

        model = pickle.loads(entry.read_bytes())
    except Exception:  # a damaged or foreign cache file: parse the TOML instead
        return None
    return model if isinstance(model, kind) else None


def store_model(path: Path, content: bytes, model: object, name: str) -> None:
    """Keep a validated model for the next run; silently nothing when that cannot be done."""
    folder = _folder()
    if folder is None:
        return
    try:
        import pickle

        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not private(folder, is_folder=True):
            return
        entry = folder / f"{name}-{_key(path, content)}.pickle"
        tmp = folder / f".{entry.name}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as stream:
            stream.write(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(entry)
        for old in folder.glob(f"{name}-*.pickle"):  # one entry per data file is plenty
            if old != entry and old.stat().st_mtime < entry.stat().st_mtime - 7 * 86400:
                old.unlink()
    except Exception:  # read-only home, full disk, a race with another run: no cache
        return
