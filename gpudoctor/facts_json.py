"""HostFacts to and from JSON, with schema-version rules.

Rules: a snapshot of the same or an older schema version loads (missing fields take their
defaults); a newer schema version is refused with a clear error that names the file and says to
upgrade gpudoctor; wrong types are refused naming the field path. Unknown keys from a newer tool of
the same schema version are ignored, so that additive changes don't need a schema bump.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from gpudoctor.errors import FactsError
from gpudoctor.facts import SCHEMA_VERSION, HostFacts

T = TypeVar("T")


def to_dict(obj: Any) -> Any:
    """A plain JSON-ready value; field order follows the dataclass for stable output."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [to_dict(v) for v in obj]
    return obj


def dumps(facts: HostFacts) -> str:
    return json.dumps(to_dict(facts), indent=2, ensure_ascii=False) + "\n"


def from_dict(cls: type[T], data: Any, path: str = "$") -> T:
    """Build dataclass `cls` from `data`, checking types; errors name the JSON path."""
    return typing.cast(T, _convert(cls, data, path))


def _convert(tp: Any, value: Any, path: str) -> Any:  # noqa: PLR0912 - a branch per form
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value, path)
    if origin is tuple:
        if not isinstance(value, list):
            raise _type_error(path, "a list", value)
        (item,) = [a for a in get_args(tp) if a is not Ellipsis]
        return tuple(_convert(item, v, f"{path}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise _type_error(path, "an object", value)
        hints = get_type_hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in value:
                kwargs[f.name] = _convert(hints[f.name], value[f.name], f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise FactsError(f"{path}: required field {f.name!r} is missing")
        return typing.cast(Any, tp)(**kwargs)
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise _type_error(path, "a number", value)
    if tp in (int, str, bool):
        # bool is a subclass of int: refuse True where an int is expected.
        if isinstance(value, tp) and not (tp is int and isinstance(value, bool)):
            return value
        raise _type_error(path, tp.__name__, value)
    raise TypeError(f"unsupported field type {tp!r} at {path}")  # a bug in facts.py, not bad input


def _type_error(path: str, expected: str, value: Any) -> FactsError:
    return FactsError(f"{path}: expected {expected}, found {type(value).__name__} {value!r:.40}")


def loads(text: str, source: str = "<snapshot>") -> HostFacts:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FactsError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            hint="pass a file written by `gpudoctor snapshot -o FILE`",
        ) from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise FactsError(
            f"{source}: not a gpudoctor snapshot (no schema_version at the top level)",
            hint="pass a file written by `gpudoctor snapshot -o FILE`",
        )
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise FactsError(f"{source}: schema_version must be an integer, found {version!r}")
    if version > SCHEMA_VERSION:
        raise FactsError(
            f"{source}: snapshot schema version {version} is newer than this gpudoctor "
            f"understands ({SCHEMA_VERSION})",
            hint="upgrade gpudoctor (pip install -U gpudoctor) to read it",
        )
    try:
        return from_dict(HostFacts, data)
    except FactsError as exc:
        raise FactsError(f"{source}: {exc.message}", hint=exc.hint) from None


def load(path: Path) -> HostFacts:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FactsError(
            f"cannot read snapshot {path}: {exc.strerror or exc}",
            hint="check the path; `gpudoctor snapshot -o FILE` writes one",
        ) from None
    except UnicodeDecodeError:
        raise FactsError(f"{path}: not a text file", hint="pass a JSON snapshot") from None
    return loads(text, str(path))
