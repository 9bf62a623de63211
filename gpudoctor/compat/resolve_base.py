"""The base image of a row: a plain distribution image for the runtime flavor of builds whose
CUDA comes with their pip wheels (each CUDA library then sits in the image once, as in the
official pytorch/pytorch runtime images), else `nvidia/cuda` (devel: nvcc; builds that load
CUDA from the system: the cuDNN image). With the distro and Python it gives the build, and
what stands against each choice."""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor import versions
from gpudoctor.compat.builds import Build
from gpudoctor.compat.candidates import Specs, contains, span
from gpudoctor.compat.request import ResolveRequest, Unsettled, target_machine
from gpudoctor.matrix.model import BaseImage, Distro, Matrix
from gpudoctor.matrix.platforms import DOCKER_PLATFORM, image_on_platform
from gpudoctor.matrix.queries import cuda_release
from gpudoctor.versions import numeric


@dataclass(frozen=True)
class Choice:
    reference: str  # "ubuntu:22.04", "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
    digest: str | None
    cuda_release: str | None  # the nvidia/cuda base's CUDA release; None for a plain image
    distro: str
    python: str
    sources: tuple[str, ...]
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # e.g. the nvidia/cuda tags are end-of-life


def plain_base(build: Build, flavor: str) -> bool:
    """Does this row's image take a base without CUDA libraries?"""
    return build.cuda_from == "wheels" and flavor == "runtime"


def choose_base(
    matrix: Matrix, build: Build, request: ResolveRequest, specs: Specs
) -> list[Choice]:
    """Every base the row could take, newest first; empty when there is none at all."""
    flavor = request.flavor or "runtime"
    if plain_base(build, flavor):
        return [_plain(matrix, build, request, specs)]
    return [
        _choose(matrix, image, build, request, specs) for image in _images_for(matrix, build.cuda)
    ]


def _ordered(names: list[str], request: ResolveRequest) -> list[str]:
    if request.distro:
        return [request.distro]
    ubuntu = [d for d in names if d.startswith("ubuntu")]
    ubuntu.sort(key=lambda d: numeric(d.removeprefix("ubuntu")), reverse=True)
    return ubuntu + [d for d in names if d not in ubuntu]


def _plain(matrix: Matrix, build: Build, request: ResolveRequest, specs: Specs) -> Choice:
    # --cuda 12.1.0 means 12.1 here: the runtime image of a wheel build has no CUDA base
    reasons: list[str] = []
    # The distros of the build's nvidia/cuda release when it has one, so the runtime and devel
    # rows of a build share distro and Python; else every distro with a plain image.
    images = _images_for(matrix, build.cuda)
    offered = {d for i in images for d in i.distros}
    plain = [d.name for d in matrix.distros if d.image]
    names = _ordered([d for d in plain if d in offered] or plain, request)
    options = []
    for name in names:
        row = next((d for d in matrix.distros if d.name == name), None)
        problems: list[str] = []
        if row is None or row.image is None:
            problems.append(f"no [[distro]] row with a plain image for {name}")
        python, more = _distro_python(row, name, build, request)
        options.append((name, row, python, problems + more))
    if not options:
        python = request.python or max(build.python, key=numeric)
        return Choice("", None, None, "any", python, (), (*reasons, "no [[distro]] has an image"))
    name, row, python, problems = min(options, key=lambda o: len(o[3]))  # first on ties
    sources = (row.source, *row.sources) if row else ()
    reference = row.image if row and row.image else ""
    return Choice(reference, None, None, name, python, sources, (*reasons, *problems))


def _images_for(matrix: Matrix, cuda: str) -> list[BaseImage]:
    wanted = numeric(cuda)[:2]
    images = [i for i in matrix.base_images if numeric(i.cuda)[:2] == wanted]
    # NVIDIA supports only the newest point release of a minor; end-of-life tags come last.
    return sorted(
        images, key=lambda i: (not i.end_of_life, numeric(i.cuda)), reverse=True
    )  # stable: file order ties


def eol_warning(image: BaseImage) -> str:
    return (
        f"{image.repository} {image.cuda} tags are end-of-life: NVIDIA no longer updates them "
        "and deletes end-of-life tags six months later; pin the digest, or choose a CUDA "
        "release whose images are supported"
    )


def _distro_python(
    row: Distro | None, distro: str, build: Build, request: ResolveRequest
) -> tuple[str, list[str]]:
    """The Python this distro gives the build, and what stands against it."""
    reasons: list[str] = []
    fallback = request.python or max(build.python, key=numeric)
    if row is None:
        reasons.append(f"no [[distro]] row for {distro}: which Pythons it packages is unknown")
        return fallback, reasons
    if not row.verified and not request.allow_unverified:
        reasons.append(Unsettled(f"[[distro]] {distro} is marked verified = false"))
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


def _platform_reasons(matrix: Matrix, image: BaseImage, request: ResolveRequest) -> list[str]:
    """An nvidia/cuda base for another machine needs an [[image_platform]] row. (The plain
    distribution images of runtime rows, ubuntu and debian, are Docker Official Images published
    for linux/amd64 and linux/arm64 alike: https://hub.docker.com/_/ubuntu.)"""
    machine = target_machine(request)
    published, verified = image_on_platform(matrix, image.repository, image.cuda, machine)
    where = f"{DOCKER_PLATFORM[machine]} image of {image.repository}:{image.cuda}"
    if not published:
        return [f"no {where} is known ([[image_platform]])"]
    if not verified and not request.allow_unverified:
        return [Unsettled(f"the {where} is marked verified = false ([[image_platform]])")]
    return []


def _choose(
    matrix: Matrix, image: BaseImage, build: Build, request: ResolveRequest, specs: Specs
) -> Choice:
    reasons: list[str] = []
    flavor = request.flavor or "runtime"
    if specs.cuda is not None and specs.cuda_by_release and not contains(specs.cuda, image.cuda):
        reasons.append(f"base image CUDA {image.cuda} does not match --cuda {specs.cuda_text}")
    if flavor not in image.flavors:
        reasons.append(f"no {flavor} image for CUDA {image.cuda}")
    release = cuda_release(matrix, image.cuda)
    if release is None or release.version != image.cuda:
        reasons.append(f"no [[cuda]] row for CUDA {image.cuda}")
    if not request.allow_unverified:
        if not image.verified:
            reasons.append(Unsettled(f"[[base_image]] {image.cuda} is marked verified = false"))
        if release is not None and not release.verified:
            reasons.append(Unsettled(f"[[cuda]] {release.version} is marked verified = false"))
    if build.system_cudnn:
        reasons.extend(_cudnn_reasons(image, build))
    reasons.extend(_platform_reasons(matrix, image, request))
    options = []
    for distro in _ordered(list(image.distros), request):
        row = next((d for d in matrix.distros if d.name == distro), None)
        python, more = _distro_python(row, distro, build, request)
        if distro not in image.distros:
            more.insert(
                0, f"no {distro} image for CUDA {image.cuda} (has {', '.join(image.distros)})"
            )
        options.append((distro, python, more))
    distro, python, distro_reasons = min(options, key=lambda o: len(o[2]))  # first on ties
    cudnn_part = f"{image.cudnn_tag}-" if build.system_cudnn and image.cudnn_tag else ""
    tag = f"{image.cuda}-{cudnn_part}{flavor}-{distro}"
    sources = (
        *(((release.source, *release.sources)) if release else ()),
        image.source,
        *image.sources,
    )
    return Choice(
        f"{image.repository}:{tag}",
        dict(image.digests).get(tag),
        image.cuda,
        distro,
        python,
        sources,
        (*reasons, *distro_reasons),
        (eol_warning(image),) if image.end_of_life else (),
    )


def _cudnn_reasons(image: BaseImage, build: Build) -> list[str]:
    if image.cudnn_tag is None:
        return [f"needs the system cuDNN {build.cudnn}; CUDA {image.cuda} has no cuDNN image"]
    if image.cudnn and build.cudnn and not versions.same_prefix(image.cudnn, build.cudnn, 1):
        return [f"needs cuDNN {build.cudnn}; the CUDA {image.cuda} image has cuDNN {image.cudnn}"]
    return []
