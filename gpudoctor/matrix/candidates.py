"""The candidates `resolve` tries: framework builds (a PyTorch release x one CUDA variant, or a
TensorFlow release), the checked request, and the reasons a build fails a request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.errors import UsageError
from gpudoctor.matrix.fields import numeric
from gpudoctor.matrix.model import Matrix, ResolveRequest
from gpudoctor.matrix.queries import arch_list_covers, architecture_for

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from gpudoctor.matrix.platforms import Availability

FRAMEWORKS = ("pytorch", "tensorflow")
FLAVORS = ("runtime", "devel")


@dataclass(frozen=True)
class Build:
    """One framework build: what the row needs from a base image."""

    framework: str
    version: str
    cuda: str  # "12.4"
    python: tuple[str, ...]
    cudnn: str | None
    requirements: tuple[str, ...]
    index_url: str | None
    arch_list: tuple[str, ...] | None  # None: the matrix does not list them (TensorFlow)
    system_cudnn: bool  # needs cuDNN from the base image (TensorFlow without [and-cuda])
    verified: bool
    sources: tuple[str, ...]


def builds(matrix: Matrix, framework: str) -> list[Build]:
    """Every build of `framework`, newest first (version, then CUDA)."""
    if framework == "pytorch":
        return _pytorch_builds(matrix)
    if framework == "tensorflow":
        return _tensorflow_builds(matrix)
    raise unknown_framework(framework)


def unknown_framework(name: str) -> UsageError:
    return UsageError(
        f"unknown framework {name!r}; valid: {', '.join(FRAMEWORKS)}",
        hint="use --framework pytorch or --framework tensorflow",
    )


def _pytorch_builds(matrix: Matrix) -> list[Build]:
    from packaging.version import Version

    out: list[Build] = []
    for release in sorted(matrix.pytorch, key=lambda r: Version(r.version), reverse=True):
        pins = [f"torch=={release.version}", f"torchvision=={release.torchvision}"]
        if release.torchaudio:
            pins.append(f"torchaudio=={release.torchaudio}")
        for variant in sorted(release.variants, key=lambda v: numeric(v.cuda), reverse=True):
            out.append(
                Build(
                    framework="pytorch",
                    version=release.version,
                    cuda=variant.cuda,
                    python=release.python,
                    cudnn=variant.cudnn,
                    requirements=tuple(pins),
                    index_url=variant.index_url,
                    arch_list=variant.arch_list,
                    system_cudnn=False,  # the wheels bring their own cuDNN
                    verified=release.verified and variant.verified,
                    sources=(release.source, *release.sources, variant.source, *variant.sources),
                )
            )
    return out


def _tensorflow_builds(matrix: Matrix) -> list[Build]:
    from packaging.version import Version

    return [
        Build(
            framework="tensorflow",
            version=tf.version,
            cuda=tf.cuda,
            python=tf.python,
            cudnn=tf.cudnn,
            requirements=(tf.pip,),
            index_url=None,
            arch_list=None,
            # Since 2.14 `tensorflow[and-cuda]` installs CUDA and cuDNN from PyPI; older
            # releases load them from the system, so they need a cuDNN base image.
            system_cudnn="[and-cuda]" not in tf.pip.replace(" ", ""),
            verified=tf.verified,
            sources=(tf.source, *tf.sources),
        )
        for tf in sorted(matrix.tensorflow, key=lambda r: Version(r.version), reverse=True)
    ]


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
        arch_list_covers(["8.0"], cc)  # raises UsageError for a malformed capability
    cuda = _spec(request.cuda, "--cuda")
    release_level = cuda is not None and all(
        len(s.version.removesuffix(".*").split(".")) >= 3 for s in cuda
    )
    return Specs(
        _spec(request.version, "--version"),
        cuda,
        release_level,
        version_text=request.version or "",
        cuda_text=request.cuda or "",
    )


def contains(spec: SpecifierSet, version: str) -> bool:
    return spec.contains(version, prereleases=True)


def build_reasons(matrix: Matrix, build: Build, request: ResolveRequest, specs: Specs) -> list[str]:
    reasons: list[str] = []
    if specs.version is not None and not contains(specs.version, build.version):
        reasons.append(f"version {build.version} does not match --version {specs.version_text}")
    if (
        specs.cuda is not None
        and not specs.cuda_by_release
        and not contains(specs.cuda, build.cuda)
    ):
        reasons.append(f"CUDA {build.cuda} does not match --cuda {specs.cuda_text}")
    if request.python is not None and request.python not in build.python:
        reasons.append(f"supports Python {span(build.python)}, not {request.python}")
    if not build.verified and not request.allow_unverified:
        reasons.append("marked verified = false (use --allow-unverified to consider it)")
    if request.machine is not None:
        where = availability(matrix, build, request.machine)
        if not where.ok:
            reasons.append(where.reason)
        elif not where.verified and not request.allow_unverified:
            reasons.append(
                f"{where.reason} is not read from the wheels (verified = false; use "
                "--allow-unverified to consider it)"
            )
    for cc in request.compute_capabilities:
        reason = _gpu_reason(matrix, build, cc)
        if reason:
            reasons.append(reason)
    return reasons


def availability(matrix: Matrix, build: Build, machine: str | None) -> Availability:
    """Whether `build` is published for `machine`, and from which pip index."""
    from gpudoctor.matrix.platforms import available_on

    return available_on(
        matrix,
        build.framework,
        build.version,
        build.cuda,
        machine=machine,
        row_index_url=build.index_url,
    )


def _gpu_reason(matrix: Matrix, build: Build, cc: str) -> str | None:
    if build.arch_list is not None:
        verdict = arch_list_covers(build.arch_list, cc)
        return None if verdict.ok else f"wheel for CUDA {build.cuda}: {verdict.reason}"
    # No arch list in the matrix: the toolkit the framework was built with must know the GPU.
    arch = architecture_for(matrix, cc)
    if arch is None:
        return f"compute capability {cc} is not in the matrix's [[architecture]] table"
    cuda = numeric(build.cuda)
    if cuda < numeric(arch.min_cuda):
        return f"CUDA {build.cuda} predates compute capability {cc} (needs >= {arch.min_cuda})"
    if arch.max_cuda and cuda[:2] > numeric(arch.max_cuda):
        return f"CUDA {build.cuda} no longer supports compute capability {cc} (<= {arch.max_cuda})"
    return None


def span(pythons: Iterable[str]) -> str:
    ordered = sorted(pythons, key=numeric)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"
