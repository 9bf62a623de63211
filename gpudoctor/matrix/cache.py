"""A per-user disk cache of the validated matrix, so that `gpudoctor check` does not pay for
parsing and validating the 1,700-line TOML (and importing tomllib, the validators and
packaging's requirement parser) on every run: ~60 ms before, ~3 ms from the cache.

The key is the matrix file's content digest plus the code that turns it into the model (the
gpudoctor version and the modification times of the matrix modules), so an edited matrix or an
upgraded gpudoctor is parsed and validated again. The cache is only an optimisation: any failure
to read or write it falls back to parsing. It is pickled, so it is trusted only in a folder and
file that belong to this user and that nobody else can write (0700 / 0600).
GPUDOCTOR_NO_MATRIX_CACHE=1 turns it off.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix

_CODE = ("model.py", "load.py", "load_rocm.py", "fields.py", "validate.py", "cache.py")


def _folder() -> Path | None:
    if os.environ.get("GPUDOCTOR_NO_MATRIX_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "gpudoctor"


def _key(path: Path, content: bytes) -> str:
    """A file name for this content read by this code (zlib, not hashlib: hashlib loads
    OpenSSL, ~2 ms; a clash needs the same CRC and length of two matrices at one path)."""
    import zlib

    from gpudoctor import __version__

    here = Path(__file__).parent
    stamps = [str((here / name).stat().st_mtime_ns) for name in _CODE]
    code = "\0".join((str(path), __version__, sys.version, *stamps)).encode()
    return f"{zlib.crc32(code):08x}-{zlib.crc32(content):08x}-{len(content)}"


def _private(path: Path, *, folder: bool) -> bool:
    """Owned by this user and writable by nobody else (else a pickle there is not trusted)."""
    try:
        st = path.stat()
    except OSError:
        return False
    mode_ok = (st.st_mode & 0o022) == 0 if folder else (st.st_mode & 0o077) == 0
    return st.st_uid == os.getuid() and mode_ok


def load(path: Path, content: bytes) -> Matrix | None:
    """The cached matrix for this file content, or None."""
    folder = _folder()
    if folder is None:
        return None
    try:
        entry = folder / f"matrix-{_key(path, content)}.pickle"
        if not (_private(folder, folder=True) and _private(entry, folder=False)):
            return None
        import pickle

        from gpudoctor.matrix.model import Matrix

        matrix = pickle.loads(entry.read_bytes())
    except Exception:  # a damaged or foreign cache file: parse the TOML instead
        return None
    return matrix if isinstance(matrix, Matrix) else None


def store(path: Path, content: bytes, matrix: Matrix) -> None:
    """Keep the validated matrix for the next run; silently nothing when that cannot be done."""
    folder = _folder()
    if folder is None:
        return
    try:
        import pickle

        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder, folder=True):
            return
        entry = folder / f"matrix-{_key(path, content)}.pickle"
        tmp = folder / f".{entry.name}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as stream:
            stream.write(pickle.dumps(matrix, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(entry)
        for old in folder.glob("matrix-*.pickle"):  # one entry per matrix file is plenty
            if old != entry and old.stat().st_mtime < entry.stat().st_mtime - 7 * 86400:
                old.unlink()
    except Exception:  # read-only home, full disk, a race with another run: no cache
        return
