"""Pick the newest known-good image row that meets every constraint of a ResolveRequest.

A candidate is a framework build (candidates.py) on a base image whose CUDA major.minor equals
the build's. Builds are tried newest first (framework version, then CUDA); the first that meets
every constraint wins. Defaults (docs/matrix-format.md, "Queries and rules"):
- distro: the newest Ubuntu the base image offers that packages a Python the release supports
  (then other distros in file order); python: the newest Python both the release supports and
  the distro packages ([[distro]] rows: the template installs Python from the distribution);
- flavor: runtime;
- base image: the newest CUDA patch release with a [[base_image]] row that meets the constraints;
- driver: the per-release minimum of that base image's CUDA release must be met. Minor-version
  compatibility is not used: `nvidia/cuda` images declare NVIDIA_REQUIRE_CUDA, which the
  NVIDIA container toolkit enforces per release.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.errors import NoMatchingRow
from gpudoctor.matrix.candidates import (
    FLAVORS,
    FRAMEWORKS,
    Build,
    Specs,
    build_reasons,
    builds,
    check_request,
    contains,
    span,
)
from gpudoctor.matrix.fields import numeric
from gpudoctor.matrix.model import BaseImage, Matrix, Rejection, ResolvedRow, ResolveRequest
from gpudoctor.matrix.queries import cuda_release

_NEAREST = 5


class Unresolvable(NoMatchingRow):
    """NoMatchingRow that keeps the rejected candidates, nearest first, for machine output."""

    def __init__(self, message: str, *, hint: str, rejections: tuple[Rejection, ...]) -> None:
        super().__init__(message, hint=hint)
        self.rejections = rejections


def resolve(matrix: Matrix, request: ResolveRequest) -> ResolvedRow:
    """The newest row meeting every constraint; raises NoMatchingRow (Unresolvable) listing the
    nearest rejected rows and why, and UsageError for a malformed request."""
    specs = check_request(request)
    rejections: list[Rejection] = []
    for build in builds(matrix, request.framework):
        outcome = _evaluate(matrix, build, request, specs)
        if isinstance(outcome, ResolvedRow):
            return outcome
        rejections.append(outcome)
    raise _no_match(request, rejections)


def all_rows(matrix: Matrix) -> list[ResolvedRow]:
    """Every supported row, for `render --all`: each framework release x CUDA variant, with the
    newest Python it supports, the default distro, and both flavors; unverified rows left out.
    Order: framework (pytorch, tensorflow), newest version first, newest CUDA first, runtime
    before devel."""
    rows: list[ResolvedRow] = []
    for framework in FRAMEWORKS:
        for build in builds(matrix, framework):
            for flavor in FLAVORS:
                request = ResolveRequest(framework=framework, flavor=flavor)
                outcome = _evaluate(matrix, build, request, check_request(request))
                if isinstance(outcome, ResolvedRow):
                    rows.append(outcome)
    return rows


def row_id(build: Build, python: str, distro: str, flavor: str) -> str:
    tag = "cu" + build.cuda.replace(".", "")
    return f"{build.framework}-{build.version}-{tag}-py{python}-{distro}-{flavor}"


@dataclass(frozen=True)
class _Choice:
    image: BaseImage
    distro: str
    python: str
    reasons: tuple[str, ...]


def _evaluate(
    matrix: Matrix, build: Build, request: ResolveRequest, specs: Specs
) -> ResolvedRow | Rejection:
    reasons = build_reasons(matrix, build, request, specs)
    flavor = request.flavor or "runtime"
    images = _images_for(matrix, build.cuda)
    if not images:
        reasons.append(f"no [[base_image]] for CUDA {build.cuda}")
        python = request.python or max(build.python, key=numeric)
        return Rejection(row_id(build, python, request.distro or "any", flavor), tuple(reasons))
    choices = [_choose(matrix, image, build, request, specs) for image in images]
    # The newest image without problems; else the one with the fewest (the nearest).
    best = min(choices, key=lambda c: len(c.reasons))
    candidate = row_id(build, best.python, best.distro, flavor)
    if reasons or best.reasons:
        return Rejection(candidate, (*reasons, *best.reasons))
    return _row(matrix, build, best, row_id=candidate, python=best.python, flavor=flavor)


def _images_for(matrix: Matrix, cuda: str) -> list[BaseImage]:
    wanted = numeric(cuda)[:2]
    images = [i for i in matrix.base_images if numeric(i.cuda)[:2] == wanted]
    # NVIDIA supports only the newest point release of a minor; end-of-life tags come last.
    return sorted(
        images, key=lambda i: (not i.end_of_life, numeric(i.cuda)), reverse=True
    )  # stable: file order ties


def _distro_order(image: BaseImage, request: ResolveRequest) -> list[str]:
    if request.distro:
        return [request.distro]
    ubuntu = [d for d in image.distros if d.startswith("ubuntu")]
    ubuntu.sort(key=lambda d: numeric(d.removeprefix("ubuntu")), reverse=True)
    return ubuntu + [d for d in image.distros if d not in ubuntu]


def _distro_python(
    matrix: Matrix, image: BaseImage, distro: str, build: Build, request: ResolveRequest
) -> tuple[str, list[str]]:
    """The Python this distro gives the build, and what stands against it."""
    reasons: list[str] = []
    if distro not in image.distros:
        reasons.append(f"no {distro} image for CUDA {image.cuda} (has {', '.join(image.distros)})")
    fallback = request.python or max(build.python, key=numeric)
    row = next((d for d in matrix.distros if d.name == distro), None)
    if row is None:
        reasons.append(f"no [[distro]] row for {distro}: which Pythons it packages is unknown")
        return fallback, reasons
    if not row.verified and not request.allow_unverified:
        reasons.append(f"[[distro]] {distro} is marked verified = false")
    if request.python is not None:
        if request.python not in row.pythons:
            reasons.append(f"{distro} packages Python {span(row.pythons)}, not {request.python}")
        return request.python, reasons
    usable = [p for p in build.python if p in row.pythons]
    if not usable:
        reasons.append(
            f"{distro} packages Python {span(row.pythons)}, none of {span(build.python)}"
        )
        return fallback, reasons
    return max(usable, key=numeric), reasons


def _choose(
    matrix: Matrix, image: BaseImage, build: Build, request: ResolveRequest, specs: Specs
) -> _Choice:
    reasons: list[str] = []
    flavor = request.flavor or "runtime"
    if specs.cuda is not None and specs.cuda_by_release and not contains(specs.cuda, image.cuda):
        reasons.append(f"base image CUDA {image.cuda} does not match --cuda {specs.cuda_text}")
    if flavor not in image.flavors:
        reasons.append(f"no {flavor} image for CUDA {image.cuda}")
    release = cuda_release(matrix, image.cuda)
    if release is None or release.version != image.cuda:
        reasons.append(f"no [[cuda]] row for CUDA {image.cuda} (its minimum driver is unknown)")
    elif request.driver and numeric(request.driver) < numeric(release.min_driver_linux):
        reasons.append(
            f"CUDA {image.cuda} needs driver >= {release.min_driver_linux}, not {request.driver}"
        )
    if not request.allow_unverified:
        if not image.verified:
            reasons.append(f"[[base_image]] {image.cuda} is marked verified = false")
        if release is not None and not release.verified:
            reasons.append(f"[[cuda]] {release.version} is marked verified = false")
    if build.system_cudnn:
        reasons.extend(_cudnn_reasons(image, build))
    options = [
        (distro, *_distro_python(matrix, image, distro, build, request))
        for distro in _distro_order(image, request)
    ]
    distro, python, distro_reasons = min(options, key=lambda o: len(o[2]))  # first on ties
    return _Choice(image, distro, python, (*reasons, *distro_reasons))


def _cudnn_reasons(image: BaseImage, build: Build) -> list[str]:
    if image.cudnn_tag is None:
        return [f"needs the system cuDNN {build.cudnn}; CUDA {image.cuda} has no cuDNN image"]
    if image.cudnn and build.cudnn and image.cudnn.split(".")[0] != build.cudnn.split(".")[0]:
        return [f"needs cuDNN {build.cudnn}; the CUDA {image.cuda} image has cuDNN {image.cudnn}"]
    return []


def _row(
    matrix: Matrix, build: Build, choice: _Choice, *, row_id: str, python: str, flavor: str
) -> ResolvedRow:
    image = choice.image
    release = cuda_release(matrix, image.cuda)
    assert release is not None  # _choose rejected the image otherwise
    cudnn_part = f"{image.cudnn_tag}-" if build.system_cudnn and image.cudnn_tag else ""
    tag = f"{image.cuda}-{cudnn_part}{flavor}-{choice.distro}"
    sources = (*build.sources, release.source, *release.sources, image.source, *image.sources)
    return ResolvedRow(
        id=row_id,
        framework=build.framework,
        version=build.version,
        cuda=build.cuda,
        cuda_release=image.cuda,
        cudnn=build.cudnn,
        python=python,
        min_driver_linux=release.min_driver_linux,
        base_image=f"{image.repository}:{tag}",
        base_digest=dict(image.digests).get(tag),
        flavor=flavor,
        distro=choice.distro,
        requirements=build.requirements,
        index_url=build.index_url,
        arch_list=build.arch_list or (),
        sources=tuple(dict.fromkeys(sources)),
        warnings=(_eol_warning(image),) if image.end_of_life else (),
    )


def _eol_warning(image: BaseImage) -> str:
    return (
        f"{image.repository} {image.cuda} tags are end-of-life: NVIDIA no longer updates them "
        "and deletes end-of-life tags six months later; pin the digest, or choose a CUDA "
        "release whose images are supported"
    )


def describe_request(request: ResolveRequest) -> str:
    parts = [
        f"{flag} {value}"
        for flag, value in (
            ("--version", request.version),
            ("--cuda", request.cuda),
            ("--python", request.python),
            ("--driver", request.driver),
            ("--flavor", request.flavor),
            ("--distro", request.distro),
        )
        if value
    ]
    parts.extend(f"--compute-capability {cc}" for cc in request.compute_capabilities)
    return " ".join(parts) or "no constraints"


def _distance(rejection: Rejection) -> tuple[int, int]:
    """Hard reasons first; "verified = false" is one flag away (--allow-unverified)."""
    soft = sum("verified = false" in reason for reason in rejection.reasons)
    return len(rejection.reasons) - soft, soft


def _no_match(request: ResolveRequest, rejections: list[Rejection]) -> Unresolvable:
    framework = request.framework
    if not rejections:
        return Unresolvable(
            f"the matrix has no {framework} rows",
            hint="use a matrix with [[" + framework + "]] rows (--matrix PATH)",
            rejections=(),
        )
    nearest = sorted(rejections, key=_distance)  # stable: newest first on ties
    lines = [f"  {r.candidate}: {'; '.join(r.reasons)}" for r in nearest[:_NEAREST]]
    return Unresolvable(
        f"no {framework} row matches {describe_request(request)}; nearest rows:\n"
        + "\n".join(lines),
        hint=f"relax a constraint; `gpudoctor matrix list --framework {framework}` shows every "
        "release",
        rejections=tuple(nearest),
    )
