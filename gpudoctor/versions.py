"""Versions and package names: the one place that reads them, on `packaging`.

Three kinds of version text reach gpudoctor, and each has one reader here:

- dotted numbers the matrix and NVML use (drivers "550.54.15", CUDA "12.4", compute
  capabilities "9.0"): `numeric`, strict, raises ValueError on anything else;
- versions found on a host or in a report ("2.5.1+cu124", "2.5.0a0+git1234", "v12.4",
  "9.1.0 (build 7)"): `release`, lenient, the leading release numbers or None;
- PEP 440 versions of wheels and rows (`pep440`, `is_pep440`, `public`).

Version tuples read that way are compared with `compare`, the one table of the operators
that `--require` expressions and NVIDIA_REQUIRE_CUDA constraints use (`OPERATORS`).

`packaging` is imported inside the functions: `gpudoctor --help` must not pay for it.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    # The type, for annotations elsewhere (`if TYPE_CHECKING: from gpudoctor.versions import
    # Version`); at run time every module builds one through pep440().
    from packaging.version import Version as Version  # noqa: PLC0414 (a re-export mypy sees)

# The comparison operators of requirement expressions, longest first so that a reader tries
# `>=` before `>`; `=` means `==` (NVIDIA_REQUIRE_CUDA writes `brand=tesla`).
OPERATORS = (">=", "<=", "==", "!=", ">", "<", "=")
_OPERATOR: dict[str, Callable[[Any, Any], Any]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
}
Comparable = Union[tuple[int, ...], float]

_DOTTED = re.compile(r"\d+(?:\.\d+)*")
_LEADING = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


@functools.lru_cache(maxsize=4096)  # called per check per host: a fleet asks the same few
def numeric(text: str) -> tuple[int, ...]:
    """Dotted numbers as a tuple ("550.54.15" -> (550, 54, 15)); ValueError for anything else
    (a pre-release, a local tag, letters), so a matrix value is exact or refused."""
    if not _DOTTED.fullmatch(text):
        raise ValueError(f"not a dotted version: {text!r}")
    return pep440(text).release


@functools.lru_cache(maxsize=4096)
def release(text: str | None) -> tuple[int, ...] | None:
    """The release numbers of a version found on a host: "550.90.07" -> (550, 90, 7),
    "2.5.1+cu124" -> (2, 5, 1), "2.5.0a0+git12" -> (2, 5, 0), "9.1.0 (build 7)" -> (9, 1, 0);
    None when the text does not start with a number."""
    if text is None:
        return None
    parsed = _parse(text.strip())
    if parsed is not None and parsed.epoch == 0:
        return parsed.release
    match = _LEADING.match(text)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def major_minor(text: str | None, *, pad: bool = True) -> str | None:
    """ "12.4.1" -> "12.4", "2.5.1+cu124" -> "2.5", "12" -> "12.0" (None with pad=False: a
    matrix row is always named by at least X.Y); None when not a version."""
    parts = release(text)
    if parts is None or (len(parts) < 2 and not pad):
        return None
    return f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"


def major(text: str) -> int:
    """The major of a dotted matrix version: "12.4" -> 12 (ValueError when not one)."""
    return numeric(text)[0]


def same_prefix(a: str | None, b: str | None, count: int | None = None) -> bool:
    """Both versions agree on their first `count` release numbers (None: as many as both
    give: torch reports cuDNN as M.m.p, TensorFlow often only M)."""
    left, right = release(a), release(b)
    if left is None or right is None:
        return False
    n = min(len(left), len(right)) if count is None else count
    return left[:n] == right[:n]


def canonical(text: str) -> str:
    """One spelling of a dotted version ("12.04.1" -> "12.4.1", "8.00" -> "8.0"), so that one
    version spelled two ways is caught as a duplicate; anything else unchanged."""
    return ".".join(str(n) for n in numeric(text)) if _DOTTED.fullmatch(text) else text


def sort_key(text: str) -> tuple[int, ...]:
    """Order for listing versions: by release numbers; text that is no version sorts first."""
    return release(text) or ()


def cuda_tag(cuda: str) -> str:
    """The wheel tag of a CUDA release: "12.4" and "12.4.1" -> "cu124"."""
    return "cu" + "".join(str(n) for n in numeric(cuda)[:2])


_LOCAL_CU_TAG = re.compile(r"^cu(\d+)(\d)$")


def cuda_of_tag(local: str) -> str | None:
    """The CUDA of a wheel's local version tag: "cu124" -> "12.4", "cu92" -> "9.2"; None for
    "cpu", "rocm6.1" or anything else (the reverse of cuda_tag)."""
    tag = _LOCAL_CU_TAG.match(local)
    return f"{tag.group(1)}.{tag.group(2)}" if tag else None


def is_pep440(text: str) -> bool:
    return _parse(text) is not None


def pep440(text: str) -> Version:
    """A PEP 440 version; packaging's InvalidVersion (a ValueError) when it is not one."""
    from packaging.version import Version

    return Version(text)


def public(text: str) -> str:
    """ "2.5.1+cu124" -> "2.5.1" (the version pip pins)."""
    return text.partition("+")[0]


_NAME_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """A distribution name as the index compares it: "Nvidia_CUDNN.cu12" -> "nvidia-cudnn-cu12".

    PEP 503's normalisation, the rule `packaging.utils.canonicalize_name` applies (a test holds
    the two equal): importing packaging.utils also imports packaging.tags and sysconfig, a cost on
    `gpudoctor check`'s path, where the frameworks probe normalises every installed
    distribution's name."""
    return _NAME_SEPARATORS.sub("-", name).lower()


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> Version | None:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def compare(have: Comparable, op: str, want: Comparable) -> bool:
    """`have op want` for one of OPERATORS. Version tuples are compared on the length of `want`:
    `have` is cut to it or padded with zeros, so driver 550.54.15 >= 550 holds and 12 == 12.0.
    Numbers (a memory size in bytes) compare as numbers. KeyError for another operator."""
    if isinstance(have, tuple) and isinstance(want, tuple):
        have = have[: len(want)] + (0,) * (len(want) - len(have))
    return bool(_OPERATOR[op](have, want))
