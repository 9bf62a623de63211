"""What the user names on the command line, parsed and checked against the matrix, with one
wording for each mistake in every command.

`--framework NAME[==VER]`, `--version VER` and `--cuda VER` are parsed here, and a framework
release or CUDA version the matrix does not know is bad input (exit 2): "... is not in the
matrix", with the nearest known versions by version order (for CUDA 12.99: 12.9 and 13.0) and the
command that lists them. Commands call this before the model runs, so `check`, `build`, `render`,
`matrix resolve` and `matrix show` answer the same mistake with the same words.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.errors import UsageError

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix

FRAMEWORKS = framework_names.MATRIX
_ALIASES = framework_names.ALIASES
_SPEC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:==?\s*(\S+?))?\s*$")
_PLAIN_VERSION = re.compile(r"\d+(?:\.\d+)*")
_CUDA = re.compile(r"\d+\.\d+(?:\.\d+)?")
_NEAREST = 3


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to a mistyped word, or None when nothing is close."""
    close = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_framework(name: str) -> UsageError:
    """The one wording for a framework name gpudoctor does not know."""
    guess = did_you_mean(name, _ALIASES)
    hint = f"did you mean {_ALIASES[guess]}? " if guess else ""
    return UsageError(
        f"unknown framework {name!r}: gpudoctor knows {', '.join(FRAMEWORKS)}",
        hint=f"{hint}e.g. --framework pytorch==2.5",
    )


def framework_name(name: str) -> str:
    """ "torch" -> "pytorch"; UsageError (with did-you-mean) for an unknown name."""
    known = _ALIASES.get(name.strip().lower())
    if known is None:
        raise unknown_framework(name.strip())
    return known


def parse_framework(text: str, option: str = "--framework") -> tuple[str, str | None]:
    """ "pytorch==2.5" -> ("pytorch", "2.5"), "tf" -> ("tensorflow", None)."""
    match = _SPEC.match(text)
    if match is None:
        raise UsageError(
            f"{option} {text!r} is not NAME or NAME==VERSION",
            hint="e.g. --framework pytorch==2.5 or --framework tensorflow",
        )
    version = match.group(2)
    if version is not None and not _PLAIN_VERSION.fullmatch(version):
        raise UsageError(
            f"{option} {text!r}: {version!r} is not a version like 2.5",
            hint="e.g. --framework pytorch==2.5",
        )
    return framework_name(match.group(1)), version


def framework_and_version(
    framework: str | None, version: str | None
) -> tuple[str | None, str | None]:
    """`--framework NAME[==VER]` with the separate `--version SPEC` of build/render/resolve."""
    if framework is None:
        return None, version
    name, pinned = parse_framework(framework)
    if pinned is not None and version is not None and pinned != version:
        raise UsageError(
            f"--framework {framework} and --version {version} name different versions",
            hint=f"give one: --framework {name}=={version} or --version {pinned}",
        )
    return name, pinned or version


def parse_cuda(text: str) -> str:
    if not _CUDA.fullmatch(text.strip()):
        raise UsageError(f"--cuda {text!r} is not a CUDA version like 12.1", hint="--cuda 12.1")
    return text.strip()


def is_plain_version(text: str | None) -> bool:
    """A bare version ("2.5", "12.4.1"), not a PEP 440 specifier (">=2.4,<2.6")."""
    return text is not None and bool(_PLAIN_VERSION.fullmatch(text.strip()))


# --- against the matrix -----------------------------------------------------------------------


def _matches(known: str, wanted: str) -> bool:
    want = versions.sort_key(wanted)
    return versions.sort_key(known)[: len(want)] == want


def nearest(wanted: str, known: Iterable[str], count: int = _NEAREST) -> list[str]:
    """Known versions nearest to `wanted` in version order: the neighbours just below and just
    above first, then outwards (for 12.99 among CUDA versions: 12.9, 13.0, 12.8, ...)."""
    ordered = sorted(set(known), key=versions.sort_key)
    keys = [versions.sort_key(v) for v in ordered]
    at = bisect.bisect_left(keys, versions.sort_key(wanted))
    below, above = ordered[:at][::-1], ordered[at:]
    out: list[str] = []
    for pair in zip(below, above):
        out += pair
    longer = below if len(below) > len(above) else above
    out += longer[min(len(below), len(above)) :]
    return out[:count]


def framework_versions(matrix: Matrix, framework: str) -> list[str]:
    rows = matrix.pytorch if framework == "pytorch" else matrix.tensorflow
    return [r.version for r in rows]


def cuda_versions(matrix: Matrix, framework: str | None) -> list[str]:
    """The CUDA versions (major.minor) a framework's builds use, or the matrix's CUDA releases."""
    if framework == "pytorch":
        return [v.cuda for r in matrix.pytorch for v in r.variants]
    if framework == "tensorflow":
        return [r.cuda for r in matrix.tensorflow]
    return [c.major_minor for c in matrix.cuda]


def not_in_matrix(
    what: str, wanted: str, known: Sequence[str], listing: str, scope: str = ""
) -> UsageError:
    """The one wording for a version the matrix does not have."""
    near = nearest(wanted, known)
    where = f" for {scope}" if scope else ""
    return UsageError(
        f"{what} {wanted} is not in the matrix{where}; nearest: {', '.join(near) or 'none'}",
        hint=f"`{listing}` lists every one the matrix knows",
    )


def check_release(matrix: Matrix, framework: str, version: str | None) -> None:
    """UsageError when `version` (a bare version) names no release of `framework`."""
    if not is_plain_version(version):
        return  # a specifier: resolve explains what it rejected
    assert version is not None
    known = framework_versions(matrix, framework)
    if not any(_matches(k, version) for k in known):
        raise not_in_matrix(
            framework, version, known, f"gpudoctor matrix list --framework {framework}"
        )


def check_cuda(matrix: Matrix, framework: str | None, cuda: str | None) -> None:
    """UsageError when `cuda` (a bare version) is no CUDA the framework (or matrix) knows."""
    if not is_plain_version(cuda):
        return
    assert cuda is not None
    known = sorted(set(cuda_versions(matrix, framework)), key=versions.sort_key)
    short = versions.major_minor(cuda.strip(), pad=False) or cuda.strip()
    if not any(_matches(k, short) for k in known):
        listing = "gpudoctor matrix list" + (f" --framework {framework}" if framework else "")
        raise not_in_matrix("CUDA", cuda.strip(), known, listing, scope=framework or "")


def check_asked(
    matrix: Matrix, framework: str | None, version: str | None, cuda: str | None
) -> None:
    """Every version the user named exists in the matrix (before any model runs)."""
    if framework is not None:
        check_release(matrix, framework, version)
    check_cuda(matrix, framework, cuda)
