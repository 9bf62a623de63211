"""`Frozen`'s shared methods behave as the ones `@dataclass(frozen=True)` generates: held equal
on every record of every recorded host and of the shipped matrix."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpudoctor import facts, facts_multigpu
from gpudoctor.facts_json import load
from gpudoctor.frozen import Frozen
from gpudoctor.matrix import model
from gpudoctor.matrix.load import load_matrix

HOSTS = sorted((Path(__file__).parent / "data" / "hosts").glob("*.json"))
_REFERENCES: dict[type, type] = {}


def _reference(cls: type) -> type:
    """The same fields in a plain `@dataclass(frozen=True)`, named alike."""
    if cls not in _REFERENCES:
        spec = [
            (f.name, Any, dataclasses.field(compare=f.compare, repr=f.repr, hash=f.hash))
            for f in dataclasses.fields(cls)
        ]
        ref = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
        ref.__qualname__ = cls.__qualname__
        _REFERENCES[cls] = ref
    return _REFERENCES[cls]


def _records(value: object) -> Iterator[Frozen]:
    if isinstance(value, Frozen):
        yield value
        for f in dataclasses.fields(value):  # type: ignore[arg-type]
            yield from _records(getattr(value, f.name))
    elif isinstance(value, (list, tuple, frozenset, set)):
        for item in value:
            yield from _records(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _records(item)


def _same_as_generated(record: Frozen) -> None:
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}  # type: ignore[arg-type]
    generated = _reference(type(record))(**values)
    assert repr(record) == repr(generated)
    assert record == dataclasses.replace(record)  # type: ignore[type-var]
    assert record != generated  # another class, as with generated methods
    try:
        expected: int | None = hash(generated)
    except TypeError:  # an unhashable field value (a list or dict) fails both alike
        expected = None
    if expected is None:
        with pytest.raises(TypeError):
            hash(record)
    else:
        assert hash(record) == expected


def test_every_record_class_uses_frozen() -> None:
    for module in (facts, facts_multigpu, model):
        for value in vars(module).values():
            if dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                assert issubclass(value, Frozen), value


@pytest.mark.parametrize("path", HOSTS, ids=lambda p: p.stem)
def test_host_records_behave_as_generated(path: Path) -> None:
    for record in _records(load(path)):
        _same_as_generated(record)


def test_matrix_records_behave_as_generated() -> None:
    for record in _records(load_matrix()):
        _same_as_generated(record)


def test_records_differ_on_a_compared_field() -> None:
    gpu = facts.GpuFacts(index=0, name="NVIDIA H100")
    assert gpu != dataclasses.replace(gpu, name="NVIDIA A100")
    assert gpu.__eq__(object()) is NotImplemented
