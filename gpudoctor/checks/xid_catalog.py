"""The XID catalogue (matrices/xid.toml): meaning and NVIDIA's immediate action per XID, and what
each action means for a node (severity, reset due, drain due). Loaded once, validated on load;
a broken file is a packaging bug, so it raises with the file and the row named.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from gpudoctor import tomlread
from gpudoctor.resources import matrices_dir

SEVERITIES = ("info", "warn", "error")


@dataclass(frozen=True)
class XidAction:
    name: str
    meaning: str
    severity: str  # info, warn, error
    reset_due: bool
    drain_due: bool


@dataclass(frozen=True)
class XidEntry:
    xid: int
    description: str
    action: XidAction
    source: str
    verified: bool = True


@dataclass(frozen=True)
class XidCatalogue:
    entries: dict[int, XidEntry]
    unknown: XidAction  # for an XID the table does not list

    def lookup(self, xid: int) -> XidEntry | None:
        return self.entries.get(xid)


def xid_catalogue_path() -> Path:
    return matrices_dir() / "xid.toml"


@functools.cache
def load_xid_catalogue(path: Path | None = None) -> XidCatalogue:
    path = path or xid_catalogue_path()
    data = tomlread.loads(path.read_text(encoding="utf-8"))
    actions: dict[str, XidAction] = {}
    for i, raw in enumerate(data.get("action", [])):
        action = XidAction(
            name=str(raw["name"]),
            meaning=str(raw["meaning"]),
            severity=str(raw["severity"]),
            reset_due=bool(raw["reset_due"]),
            drain_due=bool(raw["drain_due"]),
        )
        if action.severity not in SEVERITIES:
            bad = action.severity
            raise ValueError(f"{path}: action[{i}]: severity {bad!r} not in {SEVERITIES}")
        actions[action.name] = action
    entries: dict[int, XidEntry] = {}
    for i, raw in enumerate(data.get("xid", [])):
        name = str(raw["action"])
        if name not in actions:
            raise ValueError(f"{path}: xid[{i}] names unknown action {name!r}")
        entry = XidEntry(
            xid=int(raw["xid"]),
            description=str(raw["description"]),
            action=actions[name],
            source=str(raw["source"]),
            verified=bool(raw.get("verified", True)),
        )
        if entry.xid in entries:
            raise ValueError(f"{path}: xid {entry.xid} listed twice")
        entries[entry.xid] = entry
    unknown = XidAction(
        "UNKNOWN",
        "not in gpudoctor's XID table: look it up in NVIDIA's Xid catalog",
        "warn",
        reset_due=False,
        drain_due=False,
    )
    return XidCatalogue(entries, unknown)
