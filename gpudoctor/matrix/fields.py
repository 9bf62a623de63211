"""Typed reading of one TOML row: each value is checked against its kind, and every problem is
recorded as one line naming the file, the table, the row and the key (docs/matrix-format.md).

The loader keeps going after a problem so that `gpudoctor matrix validate` reports all of them at
once; a reader returns a placeholder for a bad value and the loader raises before building rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from gpudoctor import framework_names, versions
from gpudoctor.matrix.inputs import did_you_mean
from gpudoctor.report.clean import printable

_DOTTED = re.compile(r"^\d+(\.\d+)+$")


@dataclass(frozen=True)
class Kind:
    """What a value must look like: `expected` is shown to the user, `check` decides."""

    expected: str
    check: Callable[[object], bool]


# No version part, driver, tag or year in the matrix has more digits than this; a longer run is
# refused (it could reach Python's 4300-digit int conversion limit, or any absurd value).
_LONG_NUMBER = re.compile(r"\d{13}")


def bounded(value: object) -> bool:
    """A string with no absurdly long number in it."""
    return isinstance(value, str) and _LONG_NUMBER.search(value) is None


def _pattern(expected: str, regex: str, *, numbers: bool = True) -> Kind:
    """`numbers=False`: values never read as numbers (URLs, digests) may hold long digit runs."""
    compiled = re.compile(regex)
    if not numbers:
        return Kind(expected, lambda v: isinstance(v, str) and compiled.fullmatch(v) is not None)
    return Kind(expected, lambda v: bounded(v) and compiled.fullmatch(str(v)) is not None)


def _pep440(value: object) -> bool:
    return isinstance(value, str) and bounded(value) and versions.is_pep440(value)


def _requirement(value: object) -> bool:
    if not isinstance(value, str) or not bounded(value):
        return False
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(value)
    except InvalidRequirement:
        return False
    return True


TEXT = Kind("a non-empty string", lambda v: isinstance(v, str) and v.strip() != "")
ANY_TEXT = Kind("a string", lambda v: isinstance(v, str))
# A URL, optionally followed by a short note on what was read there ("... (wheel METADATA)").
URL = _pattern(
    'a URL like "https://docs.nvidia.com/..."', r"https?://[^\s/]+\S*(\s+\S.*)?", numbers=False
)
BOOL = Kind("true or false", lambda v: isinstance(v, bool))
POSITIVE_INT = Kind(
    "a positive integer below 10^9",
    lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v < 10**9,
)
CUDA_RELEASE = _pattern('a full CUDA release like "12.1.1"', r"\d+\.\d+\.\d+")
MAJOR_MINOR = _pattern('a MAJOR.MINOR version like "12.4"', r"\d+\.\d+")
COMPUTE_CAPABILITY = _pattern('a compute capability like "8.6"', r"\d+\.\d+")
ARCH_ENTRY = _pattern(
    'an arch list entry like "8.6", "9.0a" or "9.0+PTX"', r"\d+\.\d+[af]?(\+PTX)?"
)
DRIVER = _pattern('a driver version like "525.60.13" (or a branch like "580")', r"\d+(\.\d+){0,2}")
DOTTED = _pattern('a version like "9.1.0.70" or "9"', r"\d+(\.\d+)*")
PYTHON = _pattern('a Python version like "3.11"', r"3\.\d+")
YEAR_MONTH = _pattern('a date like "2024-10" (YYYY-MM)', r"\d{4}-(0[1-9]|1[0-2])")
# A driver branch's end of life: the month, or "ended" where NVIDIA states it has passed
# without giving the month.
END_OF_LIFE = _pattern(
    'a date like "2024-10" (YYYY-MM), or "ended"', r"\d{4}-(0[1-9]|1[0-2])|ended"
)
PACKAGE_MANAGER = Kind(
    '"apt" (the package manager the Dockerfile template drives)', lambda v: v == "apt"
)
FLAVOR = Kind('one of "base", "runtime", "devel"', lambda v: v in ("base", "runtime", "devel"))
DISTRO = _pattern('a distro like "ubuntu22.04" or "rockylinux9"', r"[a-z]+[0-9][0-9.]*")
CUDA_TAG = _pattern('a CUDA wheel tag like "cu124"', r"cu\d+")
CUDNN_TAG = _pattern('a cuDNN tag part like "cudnn" or "cudnn8"', r"cudnn\d*")
PRECISION = Kind(
    'one of "tf32", "bf16", "fp8", "fp4"', lambda v: v in ("tf32", "bf16", "fp8", "fp4")
)
DIGEST = _pattern('a digest like "sha256:<64 hex digits>"', r"sha256:[0-9a-f]{64}", numbers=False)
BRANCH_SUPPORT = Kind(  # a driver branch's designation
    '"long-term support", "production", "new feature" or "evaluation"',
    lambda v: v in ("long-term support", "production", "new feature", "evaluation"),
)
BRANCH = _pattern('a driver branch number like "580"', r"\d{3}")
PEP440 = Kind('a PEP 440 version like "2.5.1"', _pep440)
FRAMEWORK = Kind(
    " or ".join(f'"{n}"' for n in framework_names.MATRIX), lambda v: v in framework_names.MATRIX
)
MACHINE = Kind('"aarch64" or "x86_64" (uname -m)', lambda v: v in ("aarch64", "x86_64"))
WHEEL_INDEX = _pattern('"pypi" or an index URL', r"pypi|https://\S+")
OCI_PLATFORM = Kind('"linux/arm64"', lambda v: v == "linux/arm64")
WHEEL_CUDA = _pattern('a MAJOR.MINOR CUDA like "13.0", or "none" (CPU-only)', r"none|\d+\.\d+")
# The facts of a build that can be read from its artifact (docs/matrix-format.md, "Provenance").
ARTIFACT_FACTS = ("version", "cuda", "cudnn", "nccl", "arch_list", "python")
ARTIFACT_FACT = Kind(" or ".join(f'"{n}"' for n in ARTIFACT_FACTS), lambda v: v in ARTIFACT_FACTS)


def _specifier(value: object) -> bool:
    if not isinstance(value, str) or not bounded(value):
        return False
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        return False
    return True


SPECIFIER = Kind('a PEP 440 specifier like "<=0.14.0" or ">=2.0"', _specifier)
GFX = _pattern('an LLVM GPU target like "gfx942" or "gfx1100"', r"gfx[0-9a-f]{3,4}")
ROCM = _pattern('a ROCm version like "6.3" or "6.2.4"', r"\d+\.\d+(\.\d+)?")
PCI_ID = _pattern('a PCI device id like "0x74a1"', r"0x[0-9a-f]{4}")
AMD_KIND = Kind('"instinct" or "radeon"', lambda v: v in ("instinct", "radeon"))
REQUIREMENT = Kind('a PEP 508 requirement like "tensorflow[and-cuda]==2.15.0"', _requirement)


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

    def get(self, key: str, kind: Kind, *, required: bool = True) -> str | None:
        """A string-valued key; None when absent or bad (the problem is recorded)."""
        value = self._value(key, kind, required)
        return value if isinstance(value, str) else None

    def get_str(self, key: str, kind: Kind) -> str:
        """A required string key; "" when missing or bad (the loader will raise anyway)."""
        return self.get(key, kind) or ""

    def get_bool(self, key: str, default: bool) -> bool:
        value = self._value(key, BOOL, required=False)
        return value if isinstance(value, bool) else default

    def get_int(self, key: str, kind: Kind) -> int:
        value = self._value(key, kind, required=True)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

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

    def _value(self, key: str, kind: Kind, required: bool) -> object:
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

    def common(self) -> Common:
        """The keys every row may carry: source (required), sources, verified, notes, evidence."""
        return Common(
            source=self.get_str("source", URL),
            sources=self.get_list("sources", URL, required=False),
            verified=self.get_bool("verified", True),
            notes=self.get("notes", ANY_TEXT, required=False) or "",
            evidence=self.get("evidence", TEXT, required=False) or "",
        )


class Common(TypedDict):
    source: str
    sources: tuple[str, ...]
    verified: bool
    notes: str
    evidence: str


COMMON_KEYS = ("source", "sources", "verified", "notes", "evidence")


def row_label(table: str, index: int, raw: object, identity: str) -> str:
    """`[[pytorch]] row 3 (version "2.5.1")`: rows are counted from 1, top of the file down."""
    label = f"[[{table}]] row {index + 1}"
    if isinstance(raw, dict):
        ident = raw.get(identity)
        if isinstance(ident, (str, int)) and not isinstance(ident, bool):
            label += f" ({identity} {describe(ident) if isinstance(ident, str) else ident})"
    return label
