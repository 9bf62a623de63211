"""The kinds of values gpudoctor's TOML data files hold: what each key's value must look like
(`expected` is shown to the user, `check` decides). The keys declare their kind on the model's
dataclasses (matrix/schema.py); matrix/fields.py reads values against them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpudoctor import framework_names, versions


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
CLOUD = Kind('"aws" or "azure"', lambda v: v in ("aws", "azure"))
INSTANCE_GPUS = _pattern(
    'an instance type and its GPU count like "p4d.24xlarge=8"',
    r"[A-Za-z][A-Za-z0-9_.-]{1,60}=\d{1,3}",
)
AMD_KIND = Kind('"instinct" or "radeon"', lambda v: v in ("instinct", "radeon"))
REQUIREMENT = Kind('a PEP 508 requirement like "tensorflow[and-cuda]==2.15.0"', _requirement)
