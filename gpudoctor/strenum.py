"""`StrEnum` for every supported Python: `enum.StrEnum` came in 3.11, and a plain `(str, Enum)`
prints as `Class.MEMBER` in f-strings on 3.12+; members of this one print as their value."""

from __future__ import annotations

from enum import Enum


class StrEnum(str, Enum):
    """An enum whose members are their string values, in comparisons, `str()` and formatting."""

    # The annotation tells mypy what `.value` is (plain `Enum` types it as Any).
    _value_: str

    def __str__(self) -> str:
        return self._value_

    def __format__(self, spec: str) -> str:
        return format(self._value_, spec)
