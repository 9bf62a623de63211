"""The checked request `resolve` works from, and the reasons a build (from the compatibility
model's enumerator, gpudoctor.compat.builds) fails a request's own constraints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.compat.builds import Build, enumerate_builds, unknown_framework
from gpudoctor.compat.request import ResolveRequest, Unsettled
from gpudoctor.errors import BadValue, UsageError
from gpudoctor.matrix.inputs import FRAMEWORKS, cuda_matches, is_plain_version, parse_cuda
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.queries import arch_list_covers, min_driver_for_cuda, minor_compat_floor
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

__all__ = ["FLAVORS", "FRAMEWORKS", "Build", "Specs", "build_reasons", "check_request"]

FLAVORS = ("runtime", "devel")


@dataclass(frozen=True)
class Specs:
    version: SpecifierSet | None
    cuda: SpecifierSet | None
    cuda_by_release: bool  # the CUDA spec names full releases ("12.4.1"): test the base image
    version_text: str = ""
    cuda_text: str = ""


def _spec(text: str | None, option: str) -> SpecifierSet | None:
    """A PEP 440 specifier, or a bare version meaning that version and everything under it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    if text is None or not text.strip():
        return None
    spec = text.strip().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)*(\.\*)?", spec):
        spec = f"=={spec}" if spec.endswith(".*") else f"=={spec}.*"
    try:
        return SpecifierSet(spec)
    except InvalidSpecifier:
        raise UsageError(
            f"{option} {text!r} is not a version or a PEP 440 specifier",
            hint=f"e.g. {option} 12.4, {option} '==12.4.*' or {option} '>=12.1,<12.5'",
        ) from None


def check_request(request: ResolveRequest) -> Specs:
    if request.framework not in FRAMEWORKS:
        raise unknown_framework(request.framework)
    if request.python is not None and not re.fullmatch(r"3\.\d+", request.python):
        raise UsageError(f"--python {request.python!r} is not like 3.11", hint="use --python 3.11")
    if request.flavor is not None and request.flavor not in FLAVORS:
        raise UsageError(
            f"--flavor {request.flavor!r} is not one of: {', '.join(FLAVORS)}",
            hint="use --flavor runtime (run) or --flavor devel (compile extensions)",
        )
    if request.driver is not None:
        try:
            numeric(request.driver)
        except ValueError:
            raise UsageError(
                f"--driver {request.driver!r} is not a driver version",
                hint="give it as nvidia-smi shows it, e.g. --driver 550.54.15",
            ) from None
    for cc in request.compute_capabilities:
        try:
            arch_list_covers(["8.0"], cc)
        except BadValue as exc:  # typed by the user: bad input, worded as the query words it
            raise UsageError(exc.message, hint=exc.hint) from None

    cuda_text = parse_cuda(request.cuda) if request.cuda else None
    cuda = _spec(cuda_text, "--cuda")
    release_level = cuda is not None and all(
        len(versions.release(s.version.removesuffix(".*")) or ()) >= 3 for s in cuda
    )
    return Specs(
        _spec(request.version, "--version"),
        cuda,
        release_level,
        version_text=request.version or "",
        cuda_text=cuda_text or "",
    )


def contains(spec: SpecifierSet, version: str) -> bool:
    return spec.contains(version, prereleases=True)


def build_reasons(matrix: Matrix, build: Build, request: ResolveRequest, specs: Specs) -> list[str]:
    """What stands against `build` besides the target host (which the model judges)."""
    reasons: list[str] = []
    if specs.version is not None and not contains(specs.version, build.version):
        reasons.append(_version_reason(build, specs))
    if specs.cuda is not None and not _cuda_ok(build, specs):
        reasons.append(_cuda_reason(matrix, build, specs))
    if request.python is not None and request.python not in build.python:
        reasons.append(f"supports Python {span(build.python)}, not {request.python}")
    if not build.exists and not request.allow_unverified:
        reasons.append(
            Unsettled(
                "no primary source settles that this build exists (use --allow-unverified to "
                "consider it)"
            )
        )
    major = versions.major(build.cuda)
    if (
        min_driver_for_cuda(matrix, build.cuda) is None
        and minor_compat_floor(matrix, major) is None
    ):
        reasons.append(f"CUDA {build.cuda} is not in the matrix: its minimum driver is unknown")
    return reasons


def _cuda_ok(build: Build, specs: Specs) -> bool:
    """The build's CUDA (X.Y) meets --cuda: a full release ("12.1.0") means its X.Y here (the
    base image of a devel row is tested against the release itself, in resolve_base)."""
    if specs.cuda_by_release and is_plain_version(specs.cuda_text):
        return cuda_matches(build.cuda, specs.cuda_text)
    assert specs.cuda is not None
    return specs.cuda_by_release or contains(specs.cuda, build.cuda)


def _version_reason(build: Build, specs: Specs) -> str:
    """Not just "does not match": which side of the asked version this release lies on."""
    text = specs.version_text.strip()
    if re.fullmatch(r"\d+(\.\d+)*", text):
        want = numeric(text)
        side = "newer" if numeric(build.version)[: len(want)] > want else "older"
        return f"release {build.version} is {side} than the {text} asked for"
    return f"release {build.version} is outside --version {text}"


def _cuda_reason(matrix: Matrix, build: Build, specs: Specs) -> str:
    """Name the CUDA builds this release does have, so the user sees what to ask for."""
    have = sorted(
        {b.cuda for b in enumerate_builds(matrix, build.framework) if b.version == build.version},
        key=numeric,
    )
    return (
        f"built for CUDA {build.cuda}, not {specs.cuda_text}; {build.framework} {build.version} "
        f"has builds for CUDA {', '.join(have)}"
    )


def span(pythons: Iterable[str]) -> str:
    ordered = sorted(pythons, key=numeric)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"
