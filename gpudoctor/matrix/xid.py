"""The XID catalogue (matrices/xid.toml): meaning and NVIDIA's immediate action per XID, and what
each action means for a node (severity, reset due, drain due). Read by the one data-file reader
(matrix/reader.py), so a broken row is named by file, table, row and key like a matrix row, and
`gpudoctor matrix validate matrices/xid.toml` reports every problem at once.

Loaded only for a kernel log that holds XIDs (the `xid-history` check).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor.frozen import Frozen
from gpudoctor.matrix import kinds as k
from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.model import Provenance
from gpudoctor.matrix.reader import (
    load_cached,
    no_repeats,
    raise_problems,
    read_document,
    toml_loads,
)
from gpudoctor.matrix.schema import flag, integer, table, text
from gpudoctor.resources import matrices_dir

SEVERITIES = ("info", "warn", "error")
_SEVERITY = k.Kind('"info", "warn" or "error"', lambda v: v in SEVERITIES)
_ACTION = k.Kind(
    'an action bucket like "RESET_GPU"',
    lambda v: isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z_]*", v) is not None,
)
_HINT = (
    "fix the file (format: docs/matrix-format.md#xid-catalogue) and re-run `gpudoctor matrix "
    "validate FILE`"
)


@dataclass(frozen=True, eq=False, repr=False)
class XidAction(Frozen):
    """An immediate-action bucket of NVIDIA's Xid catalog, and what it means for a node."""

    name: str = field(metadata=text(_ACTION, "the bucket's name in NVIDIA's Xid catalog"))
    meaning: str = field(metadata=text(k.TEXT, "what to do, shown as the finding's fix"))
    severity: str = field(metadata=text(_SEVERITY, "the `xid-history` finding's severity"))
    reset_due: bool = field(metadata=flag("a GPU reset is due", required=True))
    drain_due: bool = field(metadata=flag("a node drain is due", required=True))


@dataclass(frozen=True, eq=False, repr=False)
class XidEntry(Provenance):
    xid: int = field(metadata=integer(k.POSITIVE_INT, "the Xid number", example="79"))
    description: str = field(metadata=text(k.TEXT, "what the XID means, from NVIDIA's Xid table"))
    action: str = field(metadata=text(_ACTION, "an `[[action]]` row's name"))


UNKNOWN = XidAction(
    "UNKNOWN",
    "not in gpudoctor's XID table: look it up in NVIDIA's Xid catalog",
    "warn",
    reset_due=False,
    drain_due=False,
)


@dataclass(frozen=True)
class XidCatalogue:
    path: Path
    schema_version: int
    actions: tuple[XidAction, ...] = field(
        metadata=table("action", XidAction, "name", "immediate-action buckets")
    )
    xids: tuple[XidEntry, ...] = field(metadata=table("xid", XidEntry, "xid", "XIDs"))
    unknown: XidAction = UNKNOWN  # for an XID the table does not list

    @functools.cached_property
    def entries(self) -> dict[int, XidEntry]:
        return {e.xid: e for e in self.xids}

    @functools.cached_property
    def by_name(self) -> dict[str, XidAction]:
        return {a.name: a for a in self.actions}

    def lookup(self, xid: int) -> XidEntry | None:
        return self.entries.get(xid)

    def action(self, xid: int) -> XidAction:
        """NVIDIA's action for `xid`; UNKNOWN for an XID the table does not list."""
        entry = self.entries.get(xid)
        return self.by_name[entry.action] if entry else self.unknown


def xid_catalogue_path() -> Path:
    return matrices_dir() / "xid.toml"


def load_xid_catalogue(path: Path | None = None) -> XidCatalogue:
    """The catalogue at `path` (the shipped one when None); MatrixError names every problem."""
    path = path or xid_catalogue_path()
    return load_cached(path, "XID catalogue", _HINT, parse_xid_catalogue)


def parse_xid_catalogue(text: str, path: Path) -> XidCatalogue:
    problems = Problems(str(path))
    read = read_document(XidCatalogue, toml_loads(text, path, _HINT), problems, {})
    catalogue = XidCatalogue(path, **read)
    names = [a.name for a in catalogue.actions]
    no_repeats(problems, "action", names)
    no_repeats(problems, "xid", [e.xid for e in catalogue.xids])
    clean = not problems.lines  # else an [[action]] row left out for its own problem is named
    for index, entry in enumerate(catalogue.xids):
        if clean and entry.action not in names:
            where = f"[[xid]] row {index + 1} (xid {entry.xid})"
            problems.add(where, f"key 'action': '{entry.action}' is not an [[action]] row's name")
    raise_problems(problems, _HINT, "the XID catalogue")
    return catalogue
