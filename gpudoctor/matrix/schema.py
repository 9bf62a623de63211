"""The schema of gpudoctor's TOML data files, declared once on the dataclasses that hold them.

Each field of a row class carries a `Key` in its metadata: the TOML key's shape and kind, whether
a row must have it, what it means and an example. Each field of a document class (`Matrix`, the
signature and XID catalogues) that holds rows carries a `Table`. From these declarations alone,
matrix/reader.py reads any file (every message naming the file, the table, the row and the key)
and matrix/schema_doc.py writes the key tables of docs/matrix-format.md.

Python 3.9 has no keyword-only dataclass fields, so a shared base's fields come first in every
constructor: the provenance base declares no defaults, and a key a row may leave out says in its
`Key` what it then reads as (`absent`), apart from the constructor's default.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gpudoctor.matrix.kinds import Kind

# The shapes a key's value takes in TOML.
SCALAR = "scalar"  # a string
ARRAY = "array"  # an array of strings
INTEGER = "integer"
FLAG = "flag"  # true or false
ROWS = "rows"  # an array of tables: rows of a nested table ([[pytorch.variants]])
DIGESTS = "digests"  # a table of TAG = "sha256:..."

_TYPE_NAMES = {
    SCALAR: "str",
    ARRAY: "list[str]",
    INTEGER: "int",
    FLAG: "bool",
    ROWS: "table array",
    DIGESTS: "table",
}
_META = "gpudoctor.key"
_TABLE = "gpudoctor.table"


@dataclass(frozen=True)
class Key:
    """One TOML key of a row: its shape, the kind of its value (of each item for an array), and
    what a reader and the format document need to know about it."""

    shape: str
    kind: Kind | None
    doc: str
    required: bool
    absent: Any = None  # what an optional key the row leaves out reads as
    example: str = ""
    non_empty: bool = True  # arrays: `[]` is refused
    table: str = ""  # ROWS: the nested table's name ("pytorch.variants")
    identity: str = ""  # ROWS: the key that names a nested row in messages
    row: type | None = None  # ROWS: the nested row class

    @property
    def type_name(self) -> str:
        return _TYPE_NAMES[self.shape]


@dataclass(frozen=True)
class Table:
    """A document field that holds rows: the TOML table, its row class, the key that names a
    row in messages, and the heading the format document gives it."""

    name: str
    row: type
    identity: str
    title: str


def text(
    kind: Kind, doc: str, *, example: str = "", optional: bool = False, absent: Any = None
) -> Mapping[str, Key]:
    """A string key; absent (when optional) it reads as `absent`."""
    return {_META: Key(SCALAR, kind, doc, not optional, absent, example)}


def array(
    kind: Kind,
    doc: str,
    *,
    example: str = "",
    optional: bool = False,
    non_empty: bool = True,
    absent: Any = (),
) -> Mapping[str, Key]:
    """An array of strings, each of `kind`; no item twice."""
    return {_META: Key(ARRAY, kind, doc, not optional, absent, example, non_empty)}


def integer(
    kind: Kind, doc: str, *, example: str = "", optional: bool = False
) -> Mapping[str, Key]:
    """An integer key; absent (when optional) it reads as None."""
    return {_META: Key(INTEGER, kind, doc, not optional, None, example)}


def flag(doc: str, *, absent: Any = None, required: bool = False) -> Mapping[str, Key]:
    """true or false; absent it reads as `absent` (None: not recorded)."""
    return {_META: Key(FLAG, None, doc, required, absent)}


def rows(table: str, row: type, identity: str, doc: str) -> Mapping[str, Key]:
    """A nested array of tables, at least one, each read as `row`."""
    return {_META: Key(ROWS, None, doc, True, (), "", True, table, identity, row)}


def digests(kind: Kind, doc: str, *, example: str = "") -> Mapping[str, Key]:
    """An optional table of TAG = VALUE pairs, read as sorted (tag, value) pairs."""
    return {_META: Key(DIGESTS, kind, doc, False, (), example)}


def table(name: str, row: type, identity: str, title: str) -> Mapping[str, Table]:
    return {_TABLE: Table(name, row, identity, title)}


@functools.cache
def keys(row: type) -> tuple[tuple[str, Key], ...]:
    """A row class's keys: its own in declaration order, then those of its bases, nearest
    first (provenance last): the order messages list valid keys in."""
    return tuple(_keys(row))


def _keys(row: type) -> Iterator[tuple[str, Key]]:
    chain = [c for c in row.__mro__ if dataclasses.is_dataclass(c)]
    for cls, base in zip(chain, [*chain[1:], None]):
        inherited = {f.name for f in _fields(base)} if base is not None else set()
        for f in _fields(cls):
            if f.name not in inherited and _META in f.metadata:
                yield f.name, f.metadata[_META]


def own_keys(row: type) -> Iterator[tuple[str, Key]]:
    """The keys a row class declares itself (not those of its bases)."""
    base = next((c for c in row.__mro__[1:] if dataclasses.is_dataclass(c)), None)
    inherited = {f.name for f in _fields(base)} if base is not None else set()
    return ((n, k) for n, k in keys(row) if n not in inherited)


def tables(document: type) -> Iterator[tuple[str, Table]]:
    """A document class's tables: (field name, Table), in declaration order."""
    for f in _fields(document):
        if _TABLE in f.metadata:
            yield f.name, f.metadata[_TABLE]


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    return dataclasses.fields(cls)
