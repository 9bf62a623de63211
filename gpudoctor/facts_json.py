"""HostFacts to and from JSON, with schema-version rules.

Rules: a snapshot of the same or an older schema version loads (missing fields take their
defaults); a newer schema version is refused with a clear error that names the file and says to
upgrade gpudoctor; wrong types are refused naming the field path. Unknown keys from a newer tool of
the same schema version are ignored, so that additive changes don't need a schema bump.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import re
import stat
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin

from gpudoctor.errors import FactsError
from gpudoctor.facts import SCHEMA_VERSION, HostFacts, ProbeIssue
from gpudoctor.field_types import field_types

T = TypeVar("T")


def to_dict(obj: Any) -> Any:
    """A plain JSON-ready value; field order follows the dataclass for stable output."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (tuple, list)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None  # JSON has no NaN or Infinity; strict parsers refuse Python's bare NaN
    return obj


def dumps(facts: HostFacts) -> str:
    return json.dumps(to_dict(facts), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# A snapshot of a real host is kilobytes (about 1 KiB per GPU); the cap keeps a hostile or
# mistaken file from costing minutes and gigabytes before it is refused.
MAX_SNAPSHOT_BYTES = 64 << 20
# Every number a probe records fits a signed 64-bit integer (byte counts, indexes, counters).
_INT_LIMIT = 1 << 63
_FLOAT_LIMIT = 1e18

# Recorded values the checks parse: a value that does not fit becomes None plus an issue
# naming the field (reported as `unreadable-value`), not a crashed check.
_VERSION = re.compile(r"\d{1,6}(\.\d{1,6}){0,3}")
_CC = re.compile(r"\d{1,3}\.\d{1,3}")
_SYNTAX: dict[tuple[str, str], tuple[re.Pattern[str], str]] = {
    ("NvmlFacts", "driver_version"): (_VERSION, "a driver version"),
    ("NvmlFacts", "library_version"): (_VERSION, "a driver version"),
    ("NvmlFacts", "cuda_driver_version"): (_VERSION, "a CUDA version"),
    ("KernelFacts", "nvidia_module_version"): (_VERSION, "a driver version"),
    ("GpuFacts", "compute_capability"): (_CC, "a compute capability"),
    ("FrameworkFacts", "cuda"): (_VERSION, "a CUDA version"),
    ("FrameworkFacts", "cudnn"): (_VERSION, "a cuDNN version"),
    ("DeepFrameworkFacts", "cuda"): (_VERSION, "a CUDA version"),
    ("CudaToolkit", "version"): (_VERSION, "a CUDA version"),
    ("CudaToolkit", "nvcc_version"): (_VERSION, "a CUDA version"),
    ("ContainerRuntimeFacts", "toolkit_version"): (_VERSION, "a version"),
}

Path_ = tuple[Any, ...]  # (parent, key) chains, formatted only when a message needs them
Convert = Callable[[Any, Path_, list[ProbeIssue]], Any]


class _Unfit(Exception):
    """A value of the right kind that no host can have (out of range, not finite)."""

    def __init__(self, path: Path_, reason: str) -> None:
        super().__init__(f"{_show(path)}: {reason}")
        self.reason = reason


def from_dict(cls: type[T], data: Any, path: str = "$") -> T:
    """Build dataclass `cls` from `data`, checking types; errors name the JSON path."""
    issues: list[ProbeIssue] = []
    try:
        value = _converter(typing.cast(Any, cls))(data, (path,), issues)
    except _Unfit as exc:
        raise FactsError(str(exc)) from None
    if issues and isinstance(value, HostFacts):
        value = dataclasses.replace(value, issues=(*value.issues, *issues))
    return typing.cast(T, value)


# `X | None` is a types.UnionType from Python 3.10 on, typing.Union before.
_UNIONS = (Union, getattr(types, "UnionType", Union))


@functools.cache
def _converter(tp: Any) -> Convert:
    """A converter for type `tp`, built once per type (type hints are costly to resolve)."""
    origin = get_origin(tp)
    if origin in _UNIONS:
        inner = [a for a in get_args(tp) if a is not type(None)]
        return _optional(_converter(inner[0]))
    if origin is tuple:
        (item,) = [a for a in get_args(tp) if a is not Ellipsis]
        return _sequence(_converter(item))
    if dataclasses.is_dataclass(tp):
        return _record(typing.cast(type, tp))
    scalar = {float: _float, int: _int, str: _str, bool: _exact(bool)}.get(tp)
    if scalar is None:
        raise TypeError(f"unsupported field type {tp!r}")  # a bug in facts.py, not bad input
    return scalar


def _optional(inner: Convert) -> Convert:
    def convert(value: Any, path: Path_, issues: list[ProbeIssue]) -> Any:
        if value is None:
            return None
        try:
            return inner(value, path, issues)
        except _Unfit as exc:  # out of range where None is allowed: unknown, not a refusal
            issues.append(_unreadable(path, exc.reason))
            return None

    return convert


def _sequence(item: Convert) -> Convert:
    def convert(value: Any, path: Path_, issues: list[ProbeIssue]) -> Any:
        if not isinstance(value, list):
            raise _type_error(path, "a list", value)
        return tuple(item(v, (path, i), issues) for i, v in enumerate(value))

    return convert


def _record(cls: type) -> Convert:
    hints = field_types(cls)
    fields = tuple(
        (
            f.name,
            _converter(hints[f.name]),
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            _SYNTAX.get((cls.__name__, f.name)),
        )
        for f in dataclasses.fields(cls)
    )

    def convert(value: Any, path: Path_, issues: list[ProbeIssue]) -> Any:
        if not isinstance(value, dict):
            raise _type_error(path, "an object", value)
        kwargs = {}
        for name, conv, required, syntax in fields:
            if name in value:
                got = conv(value[name], (path, name), issues)
                if syntax is not None and got is not None and not syntax[0].fullmatch(got):
                    issues.append(_unreadable((path, name), f"{got!r:.60} is not {syntax[1]}"))
                    got = None
                kwargs[name] = got
            elif required:
                raise FactsError(f"{_show(path)}: required field {name!r} is missing")
        return cls(**kwargs)

    return convert


def _float(value: Any, path: Path_, issues: list[ProbeIssue]) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, int) and abs(value) >= _INT_LIMIT:
            raise _Unfit(path, f"{_digits(value)} is out of range")
        number = float(value)
        if not math.isfinite(number) or abs(number) > _FLOAT_LIMIT:
            raise _Unfit(path, f"{number!r} is out of range")
        return number
    raise _type_error(path, "a number", value)


def _int(value: Any, path: Path_, issues: list[ProbeIssue]) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) >= _INT_LIMIT:
            raise _Unfit(path, f"{_digits(value)} is out of range")
        return value
    raise _type_error(path, "int", value)


def _exact(tp: type) -> Convert:
    def convert(value: Any, path: Path_, issues: list[ProbeIssue]) -> Any:
        if isinstance(value, tp):
            return value
        raise _type_error(path, tp.__name__, value)

    return convert


def _str(value: Any, path: Path_, issues: list[ProbeIssue]) -> str:
    if not isinstance(value, str):
        raise _type_error(path, "str", value)
    return valid_text(value)


def valid_text(value: str) -> str:
    """`value` with every lone surrogate as U+FFFD: JSON can spell them ("\\ud800"), and a
    host file name that is not UTF-8 arrives as them (Python's surrogateescape); no UTF-8
    writer accepts them, and a lenient one writes the raw bytes. The one rule for both."""
    if value.isascii():
        return value
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _digits(value: int) -> str:
    return f"a {len(str(abs(value)))}-digit number" if abs(value) < 10**4000 else "a huge number"


def _show(path: Path_) -> str:
    parts: list[str] = []
    node: Any = path
    while len(node) == 2:
        node, key = node
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return str(node[0]) + "".join(reversed(parts))


def _unreadable(path: Path_, reason: str) -> ProbeIssue:
    field = _show(path).removeprefix("$.")
    return ProbeIssue(probe="snapshot", field=field, code="unreadable-value", reason=reason)


def _type_error(path: Path_, expected: str, value: Any) -> FactsError:
    shown = _digits(value) if isinstance(value, int) and abs(value) > 10**40 else repr(value)
    return FactsError(
        f"{_show(path)}: expected {expected}, found {type(value).__name__} {shown:.40}"
    )


def _reject_constant(name: str) -> Any:
    raise FactsError(f"{name} is not a number a snapshot can hold")


def parse_json(text: str, source: str, hint: str) -> Any:
    """JSON from an untrusted file: NaN/Infinity, huge numbers and deep nesting are refused with
    one line naming `source` (json would accept the first two and overflow on the last)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise FactsError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            hint=hint,
        ) from None
    except FactsError as exc:
        raise FactsError(f"{source}: {exc.message}", hint=hint) from None
    except RecursionError:
        raise FactsError(f"{source}: nested too deeply to be a snapshot", hint=hint) from None
    except ValueError:  # an integer past Python's 4300-digit conversion limit
        raise FactsError(
            f"{source}: a number of over 4300 digits is out of range", hint=hint
        ) from None


_HINT = "pass a file written by `gpudoctor snapshot -o FILE`"


def loads(text: str, source: str = "<snapshot>") -> HostFacts:
    data = parse_json(text, source, _HINT)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise FactsError(
            f"{source}: not a gpudoctor snapshot (no schema_version at the top level)",
            hint=_HINT,
        )
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise FactsError(
            f"{source}: schema_version must be an integer from 1 up, found {version!r:.40}",
            hint=_HINT,
        )
    if version > SCHEMA_VERSION:
        raise FactsError(
            f"{source}: snapshot schema version {version} is newer than this gpudoctor "
            f"understands ({SCHEMA_VERSION})",
            hint="upgrade gpudoctor (pip install -U gpudoctor) to read it",
        )
    try:
        facts = from_dict(HostFacts, _older_k8s_node(data))
    except FactsError as exc:
        raise FactsError(f"{source}: {exc.message}", hint=exc.hint or _HINT) from None
    except RecursionError:
        raise FactsError(f"{source}: nested too deeply to be a snapshot", hint=_HINT) from None
    _refuse_repeated_indexes(facts, source)
    return facts


def _older_k8s_node(data: dict[str, Any]) -> dict[str, Any]:
    """A snapshot from before a node's resources had one home: its platform's
    k8s_gpu_capacity/k8s_gpu_allocatable counts and k8s_node_resources list (Allocatable, else
    Capacity) as k8s_node_capacity/k8s_node_allocatable items."""
    platform = data.get("platform")
    if not isinstance(platform, dict) or not any(key in platform for key in _OLDER_K8S):
        return data
    now = {k: v for k, v in platform.items() if k not in _OLDER_K8S}
    listed = platform.get("k8s_node_resources")
    homes = {
        "k8s_node_capacity": [],
        "k8s_node_allocatable": list(listed) if isinstance(listed, list) else [],
    }
    for key, home in (
        ("k8s_gpu_capacity", "k8s_node_capacity"),
        ("k8s_gpu_allocatable", "k8s_node_allocatable"),
    ):
        count = platform.get(key)
        if isinstance(count, int) and not isinstance(count, bool):
            items = [i for i in homes[home] if not (isinstance(i, dict) and i.get("name") == _GPU)]
            homes[home] = [{"name": _GPU, "value": str(count)}, *items]
    for home, items in homes.items():
        if items and home not in now:
            now[home] = items
    return {**data, "platform": now}


_GPU = "nvidia.com/gpu"
_OLDER_K8S = ("k8s_gpu_capacity", "k8s_gpu_allocatable", "k8s_node_resources")


def _refuse_repeated_indexes(facts: HostFacts, source: str) -> None:
    """A GPU index (a MIG device's within its GPU, an NVLink's within its GPU) names one
    thing: a snapshot repeating one cannot come from a host, and whatever reads it (the
    Prometheus text above all, whose scrapers reject duplicate series) would show two
    things as one. Refused here, where every snapshot is loaded, so no writer has to."""
    seen = _repeated(gpu.index for gpu in facts.nvml.gpus)
    if seen is not None:
        raise _repeat(source, f"GPU index {seen} appears twice")
    for gpu in facts.nvml.gpus:
        mig = _repeated(m.index for m in gpu.mig_devices)
        if mig is not None:
            raise _repeat(source, f"GPU {gpu.index}: MIG device index {mig} appears twice")
        link = _repeated(n.link for n in gpu.nvlinks)
        if link is not None:
            raise _repeat(source, f"GPU {gpu.index}: NVLink {link} appears twice")
    # AMD: a KFD node id and a PCI address name one GPU each (counted by `amd_gpus>=N`).
    node = _repeated(n.node for n in facts.amd.kfd_nodes)
    if node is not None:
        raise _repeat(source, f"AMD KFD node {node} appears twice")
    address = _repeated(g.address for g in facts.amd.pci_gpus if g.address)
    if address is not None:
        raise _repeat(source, f"AMD GPU at PCI address {address} appears twice")


def _repeated(values: Iterable[T]) -> T | None:
    seen: set[T] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


def _repeat(source: str, what: str) -> FactsError:
    return FactsError(
        f"{source}: {what}; a snapshot of a host names each once",
        hint="record the host again with `gpudoctor snapshot -o FILE`, or fix the edited file",
    )


def load(path: Path) -> HostFacts:
    return loads(read_capped(path, MAX_SNAPSHOT_BYTES, "snapshot"), str(path))


def read_capped(path: Path, limit: int, what: str) -> str:
    """UTF-8 text of a regular file of at most `limit` bytes; FactsError otherwise."""
    data = read_bytes_capped(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FactsError(
            f"{path}: not a text file (not UTF-8)", hint=f"pass a JSON {what}"
        ) from None


def read_bytes_capped(
    path: Path,
    limit: int,
    what: str,
    hint: str = "check the path; `gpudoctor snapshot -o FILE` writes one",
    *,
    named: bool = True,
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FactsError otherwise (opened
    non-blocking: a FIFO named as the input must not hang the command)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as stream:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)
                raise FactsError(
                    f"{path}: not a regular file" + (" (a pipe or device)" if kind else ""),
                    hint=hint,
                )
            if info.st_size > limit:  # refused by its size: a 2 GB file is never read in
                return refuse_oversized(b"", limit, str(path), what, size=info.st_size)
            data = stream.read(limit + 1)
    except OSError as exc:
        shown = f"{what} {path}" if named else str(path)
        raise FactsError(f"cannot read {shown}: {exc.strerror or exc}", hint=hint) from None
    return refuse_oversized(data, limit, str(path), what)


def refuse_oversized(
    data: bytes, limit: int, name: str, what: str, *, size: int | None = None
) -> bytes:
    """`data`, or FactsError when it (or the file's `size`, when known) is over `limit`."""
    if max(len(data), size or 0) > limit:
        raise FactsError(
            f"{name}: larger than {limit >> 20} MiB, too large for a {what}",
            hint=f"a {what} of a real host is far smaller: check that this is the right input",
        )
    return data
