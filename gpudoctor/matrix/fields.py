"""Typed reading of one TOML row: each value is checked against its kind (matrix/kinds.py), and
every problem is recorded as one line naming the file, the table, the row and the key
(docs/matrix-format.md).

matrix/reader.py drives a RowReader per row from the keys the dataclasses declare. It keeps going
after a problem so that `gpudoctor matrix validate` reports all of them at once: a bad value
reads as a placeholder, and a row with a problem is left out before the file is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gpudoctor.matrix.inputs import did_you_mean
from gpudoctor.matrix.kinds import Kind
from gpudoctor.safe_text import printable


def describe(value: object) -> str:
    """A found value, in TOML terms (the user wrote TOML, not Python)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{printable(value)}"'
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "an array" if value else "an empty array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


@dataclass
class Problems:
    """All problems found in one file, each one complete line."""

    file: str
    lines: list[str] = field(default_factory=list)

    def add(self, where: str, text: str) -> None:
        self.lines.append(f"{self.file}: {where}: {text}" if where else f"{self.file}: {text}")


class RowReader:
    """Reads the keys of one row; records unknown, missing and ill-typed keys in `problems`."""

    def __init__(
        self, problems: Problems, where: str, raw: dict[str, object], allowed: Iterable[str]
    ) -> None:
        self.problems = problems
        self.where = where
        self.raw = raw
        self.allowed = tuple(allowed)
        self.ok = True
        for key in raw:
            if key not in self.allowed:
                self._unknown(key)

    def _unknown(self, key: str) -> None:
        close = did_you_mean(key, self.allowed)
        guess = f"; did you mean '{close}'?" if close else ""
        self.fail(f"unknown key '{key}' (valid keys: {', '.join(self.allowed)}){guess}")

    def fail(self, text: str) -> None:
        self.ok = False
        self.problems.add(self.where, text)

    def get_list(
        self, key: str, kind: Kind, *, required: bool = True, non_empty: bool = True
    ) -> tuple[str, ...]:
        if key not in self.raw:
            if required:
                self.fail(f"missing key '{key}' (expected an array, each {kind.expected})")
            return ()
        value = self.raw[key]
        if not isinstance(value, list) or (non_empty and not value):
            need = "a non-empty array" if non_empty else "an array"
            found = describe(value)
            self.fail(f"key '{key}': expected {need} (each {kind.expected}), found {found}")
            return ()
        good: list[str] = []
        for index, item in enumerate(value):
            if kind.check(item) and isinstance(item, str) and printable(item) == item:
                good.append(item)
            else:
                self.fail(
                    f"key '{key}', item {index + 1}: expected {kind.expected}, "
                    f"found {describe(item)}"
                )
        if len(set(good)) != len(good):
            dupes = sorted({item for item in good if good.count(item) > 1})
            self.fail(f"key '{key}': {', '.join(dupes)} listed twice")
        return tuple(good)

    def value(self, key: str, kind: Kind, required: bool) -> object:
        """The key's value when present and of `kind`; None otherwise (the problem is recorded)."""
        if key not in self.raw:
            if required:
                self.fail(f"missing key '{key}' (expected {kind.expected})")
            return None
        value = self.raw[key]
        if not kind.check(value):
            self.fail(f"key '{key}': expected {kind.expected}, found {describe(value)}")
            return None
        if isinstance(value, str) and printable(value) != value:
            # Matrix text reaches terminals, labels and Dockerfiles: no escape sequences.
            self.fail(f"key '{key}': holds a control character, found {describe(value)}")
            return None
        return value


def row_label(table: str, index: int, raw: object, identity: str) -> str:
    """`[[pytorch]] row 3 (version "2.5.1")`: rows are counted from 1, top of the file down."""
    label = f"[[{table}]] row {index + 1}"
    if isinstance(raw, dict):
        ident = raw.get(identity)
        if isinstance(ident, (str, int)) and not isinstance(ident, bool):
            label += f" ({identity} {describe(ident) if isinstance(ident, str) else ident})"
    return label
