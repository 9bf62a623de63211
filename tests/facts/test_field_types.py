"""field_types reads dataclass annotations the way typing.get_type_hints does, on every Python:
held equal to it for every facts record where the running Python can evaluate `X | None`."""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Optional, Union

import pytest

from gpudoctor import facts, facts_multigpu
from gpudoctor.field_types import evaluate, field_types


def _records() -> list[type]:
    found = []
    for module in (facts, facts_multigpu):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                found.append(value)
    return found


@pytest.mark.skipif(sys.version_info < (3, 10), reason="get_type_hints cannot read `X | None`")
@pytest.mark.parametrize("cls", _records(), ids=lambda c: c.__name__)
def test_same_types_as_get_type_hints(cls: type) -> None:
    assert field_types(cls) == typing.get_type_hints(cls)


def test_unions_subscripts_and_names() -> None:
    names = {"Optional": Optional, "tuple": tuple, "int": int}
    assert evaluate("int | None", names) == Optional[int]
    assert evaluate("tuple[int, ...]", names) == tuple[int, ...]
    assert evaluate("str | int | None", {}) == Union[str, int, None]
    assert evaluate("Optional[tuple[str, ...]]", names) == Optional[tuple[str, ...]]


def test_anything_but_a_type_expression_is_refused() -> None:
    with pytest.raises(TypeError, match="not a type expression"):
        evaluate("f(1)", {})
