"""Load a compatibility matrix TOML file into the typed model, validating every key.

The keys of each table are declared on the model's dataclasses (matrix/model.py) and read by the
one reader of gpudoctor's data files (matrix/reader.py): errors raise MatrixError naming the
file, the table, the row (counted from 1, with its version) and the key, with what was expected
and what was found; all problems of a file are reported together. The rules that tie one row's
keys together are here; those between rows are in matrix/validate.py. Loads are cached per
resolved path, size and modification time.
"""

from __future__ import annotations

import functools
from pathlib import Path
from stat import S_ISREG

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import cache
from gpudoctor.matrix.fields import Problems, RowReader
from gpudoctor.matrix.model import (
    Architecture,
    CudaRelease,
    DriverBranch,
    Matrix,
    NcclRelease,
    PytorchRelease,
)
from gpudoctor.matrix.reader import (
    MAX_FILE_BYTES,
    RowRule,
    raise_problems,
    read_document,
    toml_loads,
)
from gpudoctor.matrix.validate import cross_check
from gpudoctor.resources import default_matrix_path

MAX_MATRIX_BYTES = MAX_FILE_BYTES
_HINT = "fix the file (format: docs/matrix-format.md) and re-run `gpudoctor matrix validate FILE`"


def load_matrix(path: Path | None = None) -> Matrix:
    """The matrix at `path`, or the shipped matrices/compat.toml when None."""
    if path is None:
        try:
            path = default_matrix_path()
        except FileNotFoundError as exc:
            raise MatrixError(str(exc), hint="reinstall gpudoctor") from None
    try:
        resolved = path.expanduser().resolve()
        stat = resolved.stat()
    except OSError as exc:
        raise MatrixError(
            f"cannot read matrix file {path}: {exc.strerror or exc}",
            hint="check the path of the matrix file (without one the shipped matrix is used)",
        ) from None
    if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
        raise MatrixError(f"cannot read matrix file {path}: not a regular file", hint=_HINT)
    if stat.st_size > MAX_MATRIX_BYTES:
        raise MatrixError(
            f"matrix file {path} is {stat.st_size >> 20} MiB, larger than the "
            f"{MAX_MATRIX_BYTES >> 20} MiB a matrix may be",
            hint="check that --matrix names a compatibility matrix (matrices/compat.toml is "
            "under 100 KiB)",
        )
    return _load_cached(resolved, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load_cached(path: Path, mtime_ns: int, size: int) -> Matrix:
    del mtime_ns, size  # part of the cache key only: an edited file is read again

    try:
        content = path.read_bytes()
        cached = cache.load(path, content)  # validated before, same content and code
        if cached is not None:
            return cached
        text = content.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise MatrixError(f"cannot read matrix file {path}: {reason}", hint=_HINT) from None
    matrix = parse_matrix(text, path)
    cache.store(path, content, matrix)
    return matrix


def parse_matrix(text: str, path: Path) -> Matrix:
    """Parse and validate matrix TOML text; `path` is what messages name (no I/O here)."""
    doc = toml_loads(text, path, _HINT)
    problems = Problems(str(path))
    matrix = Matrix(path=path, **read_document(Matrix, doc, problems, RULES))
    if not problems.lines:  # cross-row rules only make sense on well-formed rows
        cross_check(matrix, problems)
    raise_problems(problems, _HINT, "the matrix")
    return matrix


def _cuda(r: RowReader, row: CudaRelease) -> None:
    if "min_driver_linux" not in r.raw and not row.notes:
        r.fail(
            "missing key 'min_driver_linux' (expected a driver version, or 'notes' saying why "
            "the release's own Linux floor is unsourced: it is then judged by its major's "
            "minor-version rule only)"
        )


def _architecture(r: RowReader, row: Architecture) -> None:
    if row.precisions and row.precision_source is None:
        r.fail("precisions needs a precision_source naming the page they come from")


def _driver_branch(r: RowReader, row: DriverBranch) -> None:
    if row.vgpu_release is not None and "vgpu_source" not in r.raw:
        r.fail("missing key 'vgpu_source' (expected a non-empty string)")


def _nccl(r: RowReader, row: NcclRelease) -> None:
    kinds = [
        bool(row.architectures),
        bool(row.bad_compute_capabilities),
        "peermem_detected" in r.raw,
    ]
    if sum(kinds) != 1:
        r.fail(
            "a row states one fact: 'architectures', 'bad_compute_capabilities' (with "
            "'fixed_in' and 'problem') or 'peermem_detected'"
        )
    if row.bad_compute_capabilities and not (row.fixed_in and row.problem):
        r.fail("'bad_compute_capabilities' needs 'fixed_in' and 'problem'")


def _pytorch(r: RowReader, row: PytorchRelease) -> None:
    # A judge-only release (torch before 1.8) may have no source for its cuDNN: then it has
    # none rather than a guessed one; a release that is offered and built must state it.
    if row.judge_only:
        return
    for variant in row.variants:
        if variant.cudnn is None:
            r.fail(
                f"[[pytorch.variants]] cuda {variant.cuda!r}: missing key 'cudnn' (expected a "
                'version like "9.1.0.70"; only a judge_only release may leave it out)'
            )


# The rules between one row's keys, by row class (matrix/reader.py runs them).
RULES: dict[type, RowRule] = {
    CudaRelease: _cuda,
    Architecture: _architecture,
    DriverBranch: _driver_branch,
    NcclRelease: _nccl,
    PytorchRelease: _pytorch,
}
