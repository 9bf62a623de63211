"""`Frozen`: the shared `__eq__`, `__hash__` and `__repr__` of gpudoctor's frozen records.

`@dataclass(frozen=True)` writes these three methods for each class as source text and execs
it, which for the facts and matrix classes is a measurable part of every `check` start.
Declared as `@dataclass(frozen=True, eq=False, repr=False)` over `Frozen`, a class gets methods
that behave as the generated ones do: equal when of the same class with equal compared fields,
hashed as the tuple of those fields (frozen and eq make a dataclass hashable), shown as
`Name(field=...)`.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


class Frozen:
    __slots__ = ()

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.compare)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frozen) and other.__class__ is self.__class__:
            return self._compared() == other._compared()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(
            tuple(
                getattr(self, f.name)
                for f in fields(self)  # type: ignore[arg-type]
                if (f.compare if f.hash is None else f.hash)
            )
        )

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)  # type: ignore[arg-type]
            if f.repr
        )
        return f"{self.__class__.__qualname__}({shown})"
