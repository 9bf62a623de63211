"""`check --image REF`: will this built image start and run on this host, and if not, why and
which image would. The image's framework build is judged by the compatibility model (driver
tier, kernels per GPU), and its NVIDIA_REQUIRE_CUDA against the host as the NVIDIA Container
Toolkit checks it at container start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.suggest import best_for_host
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.image import admits, build_of, host_brands
from gpudoctor.compat.tiers import judge
from gpudoctor.facts_view import driver_version, has_gpu
from gpudoctor.findings import ERROR, INFO, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.platforms import DOCKER_PLATFORM, machine_of

if TYPE_CHECKING:
    from gpudoctor.compat.image import ImageFacts
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "image-runs-here"


def check_image(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    image = intent.image
    if image is None:
        return []
    return [_judge(facts, matrix, image)]


def _judge(facts: HostFacts, matrix: Matrix, image: ImageFacts) -> Finding:
    ref = image.reference
    ev = [
        ("image", ref),
        ("read_from", image.source),
        ("framework", f"{image.framework} {image.version} CUDA {image.cuda}"),
        ("nvidia_require_cuda", image.require_cuda),
        ("driver", driver_version(facts)),
        ("image_platform", image.platform),
        ("machine", facts.platform.machine),
    ]
    if not has_gpu(facts):
        return finding(
            CODE,
            ERROR,
            f"{ref} cannot use a GPU here: no NVIDIA GPU",
            fix=(
                "run it on a host with an NVIDIA GPU and driver, or judge it against one: "
                f"`gpudoctor snapshot -o host.json` there, then `gpudoctor check --from "
                f"host.json --image {ref}`"
            ),
            evidence=ev,
        )
    build = build_of(matrix, image)
    if build is None:
        return finding(CODE, UNKNOWN, f"{ref}: {_unknown_build(image)}", evidence=ev)
    start = None
    if image.require_cuda is not None:
        start = admits(
            image.require_cuda,
            driver_version(facts),
            facts.nvml.cuda_driver_version,
            host_brands(facts),
        )
    verdict = judge(matrix, from_facts(facts), build)
    problems = verdict.problems()
    wrong_platform = _platform_problem(facts, image)
    if wrong_platform:
        problems.insert(0, wrong_platform)
    if start is False:
        problems.insert(
            0,
            f"the NVIDIA Container Toolkit refuses to start it: NVIDIA_REQUIRE_CUDA "
            f"'{image.require_cuda}' does not admit this driver",
        )
    if problems:
        return finding(
            CODE,
            ERROR,
            f"{ref} will not run here ({build.label})",
            detail="; ".join(problems),
            fix=_alternative(facts, matrix, build.framework),
            evidence=ev,
        )
    how = "" if verdict.native else f" (by minor-version compatibility: {verdict.driver.limits})"
    severity = OK if verdict.native else INFO
    fix = ""
    if start is None and image.require_cuda is not None:
        severity, how = WARN, how + "; whether NVIDIA_REQUIRE_CUDA admits this host is unknown"
        # The host's driver or CUDA version could not be read: one start answers it.
        fix = f"start it once here: `docker run --rm --gpus all {ref} true`"
    return finding(
        CODE,
        severity,
        f"{ref} runs here: {build.label}{how}",
        detail=verdict.driver.reason,
        fix=fix,
        evidence=ev,
    )


def _unknown_build(image: ImageFacts) -> str:
    """Why the image's framework build cannot be judged, in words (no exception names)."""
    if image.error:
        return f"its framework could not be read ({image.error})"
    if image.framework is None:
        return (
            "it holds no GPU framework gpudoctor knows (neither torch nor tensorflow is "
            "installed for its python3), so whether its workload runs here is unknown"
        )
    if image.framework == "pytorch" and image.version and not image.cuda:
        return f"it holds a CPU-only torch {image.version}: it runs, but never on the GPU"
    cuda = f" (CUDA {image.cuda})" if image.cuda else ""
    return (
        f"its framework build {image.framework} {image.version or '?'}{cuda} is not in the matrix"
    )


def _platform_problem(facts: HostFacts, image: ImageFacts) -> str:
    """An image for another CPU architecture fails at start ("exec format error") unless the
    host emulates it; "" when they match or either is unknown."""
    want = machine_of(image.platform)
    have = machine_of(facts.platform.machine)
    if want is None or have is None or want == have:
        return ""
    return (
        f"the image is for {image.platform}, this host is {have} ({DOCKER_PLATFORM[have]}): "
        "its programs cannot execute here (exec format error)"
    )


def _alternative(facts: HostFacts, matrix: Matrix, framework: str) -> str:
    best = best_for_host(facts, matrix, framework)
    if best is None:
        return "no build in the matrix runs here: see the driver checks"
    b = best.build

    machine = machine_of(facts.platform.machine)
    platform = f" --platform {DOCKER_PLATFORM[machine]}" if machine else ""
    return (
        f"an image that runs here: gpudoctor build --framework {b.framework} --version "
        f"{b.version} --cuda {b.cuda}{platform}"
    )


CHECKS = (check_image,)
