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
from gpudoctor.matrix.platforms import DOCKER_PLATFORM, machine_of

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix

FRAMEWORKS = framework_names.MATRIX
_ALIASES = framework_names.ALIASES
_SPEC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:==?\s*(\S+?))?\s*$")
_PLAIN_VERSION = re.compile(r"\d+(?:\.\d+)*")
_CU_TAG = re.compile(r"cu(\d{1,2}?)(\d)")  # a wheel tag: cu121 -> 12.1, cu90 -> 9.0
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


ROCM_NOT_BUILT = "ROCm images are not built yet"
ROCM_HINT = (
    "images are built for NVIDIA CUDA; `gpudoctor check` judges an AMD host and names the torch "
    "ROCm build to pip install there"
)


def refuse_rocm(option: str, text: str | None) -> None:
    """build, render and resolve make CUDA images only: a ROCm target is bad input (exit 2)."""
    if text is not None and "rocm" in text.lower():
        raise UsageError(
            f"{ROCM_NOT_BUILT}: {option} {text.strip()} names an AMD ROCm build", hint=ROCM_HINT
        )


def framework_and_version(
    framework: str | None, version: str | None
) -> tuple[str | None, str | None]:
    """`--framework NAME[==VER]` with the separate `--version SPEC` of build/render/resolve."""
    refuse_rocm("--version", version)
    if framework is None:
        return None, version
    refuse_rocm("--framework", framework)
    name, pinned = parse_framework(framework)
    if pinned is not None and version is not None and pinned != version:
        raise UsageError(
            f"--framework {framework} and --version {version} name different versions",
            hint=f"give one: --framework {name}=={version} or --version {pinned}",
        )
    return name, pinned or version


def parse_cuda(text: str) -> str:
    """`--cuda` as every command reads it: `12` (any 12.x, the newest wins), `12.1` or `cu121`
    (12.1.x), `12.1.0` (12.1, and for devel builds the 12.1.0 base image), or a PEP 440 range
    on major.minor (`>=12.1,<12.5`). A wheel tag is turned into its version; UsageError for
    anything else."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    value = text.strip().replace(" ", "")
    tag = _CU_TAG.fullmatch(value)
    if tag:
        return f"{int(tag.group(1))}.{tag.group(2)}"
    if _PLAIN_VERSION.fullmatch(value) and value.count(".") <= 2:
        return value
    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        raise UsageError(
            f"--cuda {text!r} is not a CUDA version, a wheel tag or a PEP 440 range",
            hint="e.g. --cuda 12, --cuda 12.1, --cuda cu121, --cuda 12.1.0 or "
            "--cuda '>=12.1,<12.5'",
        ) from None
    return value


def cuda_matches(build_cuda: str, wanted: str | None) -> bool:
    """Does a build's CUDA (major.minor) meet `--cuda` (already through parse_cuda)? A bare
    version matches by prefix on major.minor (`12` any 12.x, `12.1.0` like `12.1`); a range
    is tested on major.minor."""
    if wanted is None:
        return True
    if _PLAIN_VERSION.fullmatch(wanted):
        want = versions.numeric(wanted)[:2]
        return versions.numeric(build_cuda)[: len(want)] == want
    # Only a range needs packaging's specifiers: a plain `check` on a host with torch installed
    # asks for the installed build's CUDA (a plain version) and leaves them unimported.
    from packaging.specifiers import SpecifierSet

    return SpecifierSet(wanted).contains(build_cuda, prereleases=True)


def machine_option(text: str | None, option: str = "--platform") -> str | None:
    """`--platform` (and its hidden alias `--machine`): linux/arm64, arm64 or aarch64 name the
    same machine; UsageError for anything else."""
    if text is None:
        return None
    machine = machine_of(text)
    if machine is None:
        raise UsageError(
            f"{option} {text!r} is not one of: {', '.join(DOCKER_PLATFORM.values())} "
            "(or x86_64, amd64, aarch64, arm64)",
            hint=f"use {option} linux/arm64 (Grace, DGX Spark) or {option} linux/amd64",
        )
    return machine


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
    if not any(cuda_matches(k, cuda.strip()) for k in known):
        listing = "gpudoctor matrix list" + (f" --framework {framework}" if framework else "")
        raise not_in_matrix("CUDA", cuda.strip(), known, listing, scope=framework or "")


def check_asked(
    matrix: Matrix, framework: str | None, version: str | None, cuda: str | None
) -> None:
    """Every version the user named exists in the matrix (before any model runs)."""
    if framework is not None:
        check_release(matrix, framework, version)
    check_cuda(matrix, framework, cuda)
