"""The one reader of gpudoctor's TOML data files: it builds any table's rows from the keys the
row classes declare (matrix/schema.py), so compat.toml, signatures.toml and xid.toml are read
and their errors worded the same way: each names the file, the table, the row (counted from 1,
with the key that names it) and the key, says what was expected and what was found, and every
problem of a file is reported at once.

Rules between keys of one row (a key that another requires) are passed in as `RowRule`s, keyed
by row class; rules between rows stay with each document's loader.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar, cast

from gpudoctor import __version__, tomlread
from gpudoctor.errors import MatrixError
from gpudoctor.matrix import fields as f
from gpudoctor.matrix import schema
from gpudoctor.matrix.fields import Problems, RowReader, row_label
from gpudoctor.matrix.kinds import BOOL
from gpudoctor.matrix.schema import Key

# A rule over one row's keys: it is given the row's reader (to `fail`) and the row as read,
# with placeholders for keys that were missing or bad.
RowRule = Callable[[RowReader, Any], None]
D = TypeVar("D")
_T = TypeVar("_T")

SUPPORTED_SCHEMA_VERSION = 1
_MAX_SHOWN = 25
# The shipped matrix is under 100 KiB; a user's extended one stays far below this. The cap keeps
# a wrong or hostile file from costing seconds to parse before anything is said about it.
MAX_FILE_BYTES = 4 << 20
# Required keys that are missing or bad read as these, so that the row can still be built and
# its rules run; the file is refused anyway.
_PLACEHOLDER = {schema.SCALAR: "", schema.ARRAY: (), schema.INTEGER: 0, schema.FLAG: False}


def read_document(
    document: type[D],
    doc: dict[str, object],
    problems: Problems,
    rules: Mapping[type, RowRule],
) -> dict[str, Any]:
    """The tables of `document` read from a parsed TOML `doc`, as constructor arguments; the
    schema version and unknown top-level tables are checked too."""
    declared = dict(schema.tables(document))
    names = [t.name for t in declared.values()]
    out: dict[str, Any] = {"schema_version": schema_version(doc, problems)}
    for key in doc:
        if key != "schema_version" and key not in names:
            problems.add("", f"unknown top-level table '{key}' (valid: {', '.join(names)})")
    for attr, table in declared.items():
        out[attr] = read_table(doc, table, problems, rules)
    return out


def read_table(
    doc: dict[str, object], table: schema.Table, problems: Problems, rules: Mapping[type, RowRule]
) -> tuple[Any, ...]:
    raw = doc.get(table.name, [])
    if not isinstance(raw, list):
        found = f.describe(raw)
        problems.add(
            "", f"'{table.name}': expected an array of tables [[{table.name}]], found {found}"
        )
        return ()
    out: list[Any] = []
    for index, item in enumerate(raw):
        where = row_label(table.name, index, item, table.identity)
        if not isinstance(item, dict):
            problems.add(where, f"expected a table, found {f.describe(item)}")
            continue
        r = RowReader(problems, where, item, [name for name, _ in schema.keys(table.row)])
        row = read_row(r, table.row, rules)
        if r.ok:
            out.append(row)
    return tuple(out)


def read_row(r: RowReader, cls: type, rules: Mapping[type, RowRule]) -> Any:
    """One row of `cls` from the reader's raw table; problems go to the reader (`r.ok`)."""
    values = {name: _value(r, name, key, rules) for name, key in schema.keys(cls)}
    row = cls(**values)
    rule = rules.get(cls)
    if rule is not None:
        rule(r, row)
    return row


def _value(  # noqa: PLR0911 - one return per shape of key
    r: RowReader, name: str, key: Key, rules: Mapping[type, RowRule]
) -> Any:
    present = name in r.raw
    if key.shape == schema.ROWS:
        return _nested(r, name, key, rules)
    if key.shape == schema.DIGESTS:
        return _digests(r, name, key) if present else key.absent
    if not present and not key.required:
        return key.absent
    placeholder = _PLACEHOLDER[key.shape]
    if key.shape == schema.ARRAY:
        assert key.kind is not None
        return r.get_list(name, key.kind, required=key.required, non_empty=key.non_empty)
    if key.shape == schema.FLAG:
        value = r.value(name, BOOL, key.required)
        return value if isinstance(value, bool) else placeholder
    assert key.kind is not None
    value = r.value(name, key.kind, key.required)
    if key.shape == schema.INTEGER:
        return value if isinstance(value, int) and not isinstance(value, bool) else placeholder
    if isinstance(value, str):
        return value
    return placeholder if key.required else key.absent


def _nested(r: RowReader, name: str, key: Key, rules: Mapping[type, RowRule]) -> tuple[Any, ...]:
    raw = r.raw.get(name)
    if not isinstance(raw, list) or not raw:
        r.fail(
            f"missing [[{key.table}]] (expected at least one row)"
            if raw is None
            else f"key '{name}': expected [[{key.table}]] tables, found {f.describe(raw)}"
        )
        return ()
    assert key.row is not None
    out: list[Any] = []
    for index, item in enumerate(raw):
        label = f"{r.where} > {row_label(key.table, index, item, key.identity)}"
        if not isinstance(item, dict):
            r.ok = False
            r.problems.add(label, f"expected a table, found {f.describe(item)}")
            continue
        inner = RowReader(r.problems, label, item, [n for n, _ in schema.keys(key.row)])
        out.append(read_row(inner, key.row, rules))
        r.ok = r.ok and inner.ok
    return tuple(out)


def _digests(r: RowReader, name: str, key: Key) -> tuple[tuple[str, str], ...]:
    raw = r.raw[name]
    if not isinstance(raw, dict):
        r.fail(f"key '{name}': expected a table of TAG = \"sha256:...\", found {f.describe(raw)}")
        return ()
    assert key.kind is not None
    out: list[tuple[str, str]] = []
    for tag, digest in sorted(raw.items()):
        if key.kind.check(digest) and isinstance(digest, str):
            out.append((tag, digest))
        else:
            found = f.describe(digest)
            r.fail(f"key '{name}', tag '{tag}': expected {key.kind.expected}, found {found}")
    return tuple(out)


def schema_version(doc: dict[str, object], problems: Problems) -> int:
    value = doc.get("schema_version")
    if value is None:
        problems.add(
            "", f"missing top-level key 'schema_version' (expected {SUPPORTED_SCHEMA_VERSION})"
        )
        return SUPPORTED_SCHEMA_VERSION
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.add(
            "", f"key 'schema_version': expected a positive integer, found {f.describe(value)}"
        )
        return SUPPORTED_SCHEMA_VERSION
    if value > SUPPORTED_SCHEMA_VERSION:
        raise MatrixError(
            f"{problems.file}: schema_version {value} is newer than this gpudoctor "
            f"({__version__}) supports (up to {SUPPORTED_SCHEMA_VERSION})",
            hint="upgrade gpudoctor: pip install -U gpudoctor",
        )
    return value


def toml_loads(text: str, path: Path, hint: str) -> dict[str, object]:
    """TOML text as a table; MatrixError naming the file for anything that is not TOML."""
    try:
        return tomlread.loads(text)
    except tomlread.TOMLDecodeError as exc:  # its message ends "(at line L, column C)"
        raise MatrixError(f"{path}: not valid TOML: {exc}", hint=hint) from None
    except RecursionError:
        raise MatrixError(f"{path}: nested too deeply to be a matrix", hint=hint) from None
    except ValueError as exc:  # tomllib: an integer past Python's 4300-digit conversion limit
        raise MatrixError(f"{path}: not a valid matrix: {exc}", hint=hint) from None


def read_text(path: Path, what: str, hint: str) -> str:
    """A data file's text; MatrixError (naming `what`: "signature file") when it cannot be
    read, is not a regular file, is too large or is not UTF-8."""
    try:
        stat = path.stat()
        if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
            raise MatrixError(f"cannot read {what} {path}: not a regular file", hint=hint)
        if stat.st_size > MAX_FILE_BYTES:
            raise MatrixError(
                f"{what} {path} is larger than the {MAX_FILE_BYTES >> 20} MiB such a file may be",
                hint=hint,
            )
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise MatrixError(f"cannot read {what} {path}: {reason}", hint=hint) from None


def stamp(path: Path) -> tuple[int, int]:
    """A file's modification time and size, for caches keyed by them (an edited file is read
    again); (0, -1) when it cannot be stat'ed (read_text then words why)."""
    try:
        stat = path.stat()
    except OSError:
        return 0, -1
    return stat.st_mtime_ns, stat.st_size


def load_cached(path: Path, what: str, hint: str, parse: Callable[[str, Path], _T]) -> _T:
    """`parse` of the data file at `path`, read again only when the file changes (its
    modification time and size key the cache); MatrixError (naming `what`) when it cannot be
    read."""
    return cast("_T", _load_cached(parse, (what, hint), path, stamp(path)))


@functools.lru_cache(maxsize=8)
def _load_cached(
    parse: Callable[[str, Path], _T], words: tuple[str, str], path: Path, key: tuple[int, int]
) -> _T:
    del key  # the file's modification time and size: part of the cache key only
    return parse(read_text(path, *words), path)


def no_repeats(problems: Problems, what: str, values: Sequence[object]) -> None:
    """One problem per value listed more than once ("xid 79 listed twice"): a table's key
    that names its rows must be unique."""
    for value in sorted({v for v in values if values.count(v) > 1}, key=str):
        shown = f"'{value}'" if isinstance(value, str) else str(value)
        problems.add("", f"{what} {shown} listed twice")


def raise_problems(problems: Problems, hint: str, what: str) -> None:
    lines = problems.lines
    if not lines:
        return
    if len(lines) == 1:
        raise MatrixError(lines[0], hint=hint)
    shown = lines[:_MAX_SHOWN]
    more = [f"... and {len(lines) - _MAX_SHOWN} more"] if len(lines) > _MAX_SHOWN else []
    body = "\n  ".join([*shown, *more])
    raise MatrixError(f"{len(lines)} problems in {what}:\n  {body}", hint=hint)
