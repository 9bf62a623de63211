"""build_image: resolve -> spec -> render -> context -> build -> verify -> push -> BuildReport.

Each step is its own function in its own module; this one only chains them and tells `progress`
what happens. The engine and the matrix are parameters: only the CLI wires the real ones.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gpudoctor.builder.context import write_context
from gpudoctor.builder.failure import explain_failure
from gpudoctor.builder.render import render_dockerfile
from gpudoctor.builder.report import BuildReport
from gpudoctor.builder.spec import (
    TAG_ONLY,
    BuildOptions,
    ImageSpec,
    make_spec,
    tag_only_warning,
    wheel_port,
    wheel_url,
)
from gpudoctor.builder.verify import raise_on_mismatch, verify_image
from gpudoctor.builder.wheel_server import serve_wheels
from gpudoctor.builder.wheelhouse import require_wheels, wheel_manifest
from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.docker.engine import (
    BuildEvent,
    BuildOutcome,
    DaemonInfo,
    ImageEngine,
    ImageInfo,
    follow_build,
)
from gpudoctor.errors import BuildFailed, EnvironmentUnavailable
from gpudoctor.findings import Finding
from gpudoctor.image_labels import LABEL_PREFIX
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.platforms import DOCKER_PLATFORM, machine_of

if TYPE_CHECKING:
    from gpudoctor.builder.context import BuildContext


@dataclass(frozen=True)
class BuildRequest:
    resolve: ResolveRequest
    options: BuildOptions = field(default_factory=BuildOptions)
    no_cache: bool = False
    push: bool = False
    verify: bool = True
    gpu: bool | None = None  # verify with a GPU; None = when the daemon has the nvidia runtime
    # Machines the daemon's host runs through registered QEMU binfmt handlers ("aarch64").
    emulated: tuple[str, ...] = ()


class Progress(Protocol):
    """Where the pipeline reports as it goes; the CLI prints to stderr, tests record."""

    def phase(self, message: str) -> None:
        """A new phase starts ("building gpudoctor/pytorch:..."), or a warning."""

    def build_event(self, event: BuildEvent) -> None:
        """One line of build output."""

    def sending(self, sent: int, total: int) -> None:
        """Bytes of the build context sent to the engine so far (while it uploads)."""

    def finding(self, finding: Finding) -> None:
        """One verify result."""


def resolve_row(matrix: Matrix, request: ResolveRequest) -> ResolvedRow:
    """The newest row meeting every constraint (NoMatchingRow lists the nearest otherwise)."""
    return resolve(matrix, request)


def render_row(
    row: ResolvedRow, options: BuildOptions, template_dir: Path
) -> tuple[ImageSpec, str]:
    """Spec and Dockerfile text; what `render` and `build --dry-run` print. No daemon."""
    spec = make_spec(row, options)
    return spec, render_dockerfile(spec, template_dir)


def build_image(
    request: BuildRequest,
    matrix: Matrix,
    engine: ImageEngine,
    progress: Progress,
    template_dir: Path,
) -> BuildReport:
    resolve_request = request.resolve
    if resolve_request.machine is None:
        # No --platform and no target host: the image is for the daemon's own platform.

        daemon = machine_of(engine.ping().architecture)
        resolve_request = replace(resolve_request, machine=daemon)
    return build_row(resolve_row(matrix, resolve_request), request, engine, progress, template_dir)


def build_row(
    row: ResolvedRow,
    request: BuildRequest,
    engine: ImageEngine,
    progress: Progress,
    template_dir: Path,
) -> BuildReport:
    """Build, verify and (with push) push the image of one row.

    Raises:
        EnvironmentUnavailable: the engine cannot be reached (exit 3).
        BuildFailed: a build step failed; names the step, carries the log tail (exit 4).
        VerifyFailed: the image does not hold what the row promises (exit 4).
    """
    spec, dockerfile = render_row(row, request.options, template_dir)
    wheels = _required_wheels(spec)
    daemon = engine.ping()
    foreign = check_platform(spec.platform, daemon, request.emulated, progress)
    spec = replace(spec, warnings=base_warnings(spec, engine))
    for warning in spec.warnings:
        progress.phase(f"warning: {warning}")
    with _wheel_source(spec, wheels, daemon, progress) as spec:
        dockerfile = render_dockerfile(spec, template_dir)
        outcome, context = _build(
            spec,
            dockerfile,
            request,
            engine=engine,
            progress=progress,
            template_dir=template_dir,
            platform=spec.platform if foreign else None,
        )
    info = engine.inspect(spec.tag)
    stage = install_stage(engine, outcome)
    findings: list[Finding] = []
    if request.verify:
        gpu = daemon.has_nvidia_runtime if request.gpu is None else request.gpu
        findings = _verify(spec, engine, progress, gpu=gpu, template_dir=template_dir)
    if request.push:
        progress.phase(f"pushing {spec.tag}")
        for line in engine.push(spec.tag):
            progress.phase(line)
    return BuildReport(
        spec=spec,
        image_id=info.id if info else outcome.image_id,
        tags=info.tags if info else (spec.tag,),
        size=info.size if info else 0,
        outcome=outcome,
        context_files=context.files,
        notes=(*spec.warnings, *context.notes),
        findings=tuple(findings),
        pushed=request.push,
        install_stage=stage,
    )


def install_stage(engine: ImageEngine, outcome: BuildOutcome) -> ImageInfo | None:
    """The install stage's image, left behind untagged as the layer cache of the next build
    (the template labels it io.gpudoctor.stage=install); the report names it and its size."""
    for image in reversed(outcome.stage_images):
        info = engine.inspect(image)
        if info is not None and info.labels.get(LABEL_PREFIX + "stage") == "install":
            return info
    return None


def base_warnings(spec: ImageSpec, engine: ImageEngine) -> tuple[str, ...]:
    """The spec's warnings, the tag-only one as the daemon's copy of the base allows: with the
    digest it was pulled with; none for an image that exists only here (no registry digest can
    pin it: its image id does); as it was for a base the build will pull."""
    if spec.base_pinned:
        return spec.warnings
    others = tuple(w for w in spec.warnings if TAG_ONLY not in w)
    info = engine.inspect(spec.base_image)
    if info is None:
        return spec.warnings
    if not info.repo_digests:
        return others
    name = spec.base_image.rpartition(":")[0] or spec.base_image
    digest = next((d for d in info.repo_digests if d.startswith(f"{name}@")), "")
    pin = digest.partition("@")[2] or info.repo_digests[0].partition("@")[2]
    return (tag_only_warning(spec.base_image, pin), *others)


def _required_wheels(spec: ImageSpec) -> tuple[Path, ...]:
    """The wheelhouse's files the build installs; UsageError (exit 2) before anything is built
    when it lacks one."""
    if spec.wheelhouse is None:
        return ()

    wanted = (*spec.requirements, *spec.extra_requirements)
    return require_wheels(spec.wheelhouse, wanted, spec.python).files


@contextmanager
def _wheel_source(
    spec: ImageSpec, wheels: tuple[Path, ...], daemon: DaemonInfo, progress: Progress
) -> Iterator[ImageSpec]:
    """The spec to build: a wheelhouse is served on 127.0.0.1 for the build's duration (a
    daemon sharing this host's network), else copied into the context."""
    if spec.wheelhouse is None:
        yield spec
        return
    if not daemon.shares_host_network:
        progress.phase(
            "note: the Docker daemon does not share this host's network, so the wheelhouse "
            "goes into the build context (sent again on every build)"
        )
        yield replace(spec, wheel_url=None)
        return

    with serve_wheels(wheels, wheel_port(spec.row.id, spec.extra_requirements)) as port:
        progress.phase(f"serving {len(wheels)} wheel(s) of {spec.wheelhouse} on 127.0.0.1:{port}")
        yield replace(spec, wheel_url=wheel_url(port), wheel_manifest=wheel_manifest(wheels))


def check_platform(
    platform: str, daemon: DaemonInfo, emulated: tuple[str, ...], progress: Progress
) -> bool:
    """Refuse a platform the daemon cannot build: not its own architecture (/info) and no QEMU
    binfmt handler registered for it. gpudoctor never sets up emulation itself. True when the
    build is for a foreign platform (emulated): only then is the platform sent with the build,
    so a native build asks the daemon exactly what it asked before platforms existed.

    Raises:
        EnvironmentUnavailable: the daemon cannot build `platform` (exit 3).
    """
    target, own = machine_of(platform), machine_of(daemon.architecture)
    if target is None or own is None or target == own:
        return False
    if target in emulated:
        progress.phase(
            f"warning: building {platform} on a {daemon.architecture} daemon through QEMU "
            "emulation (binfmt): expect a much slower build"
        )
        return True
    raise EnvironmentUnavailable(
        f"the Docker daemon runs on {daemon.architecture} ({DOCKER_PLATFORM[own]}) and cannot "
        f"build {platform} images: no emulation is registered for {target}",
        hint=(
            f"build on a {target} host (DOCKER_HOST=ssh://USER@{target}-host gpudoctor build "
            f"...), or give --platform {DOCKER_PLATFORM[own]} for this daemon's own platform"
        ),
    )


def _build(
    spec: ImageSpec,
    dockerfile: str,
    request: BuildRequest,
    *,
    engine: ImageEngine,
    progress: Progress,
    template_dir: Path,
    platform: str | None,
) -> tuple[BuildOutcome, BuildContext]:
    """Write the context into a temporary folder (gone afterwards) and build it."""
    with tempfile.TemporaryDirectory(prefix="gpudoctor-context-") as tmp:
        context = write_context(spec, dockerfile, template_dir, Path(tmp))
        for note in context.notes:
            progress.phase(f"note: {note}")
        progress.phase(f"building {spec.tag} from {spec.base_image} (row {spec.row.id})")
        events = engine.build(
            context.path,
            tag=spec.tag,
            nocache=request.no_cache,
            build_args=dict(spec.build_args),
            platform=platform,
            sent=lambda n: progress.sending(n, context.size),
            host_network=spec.wheel_url is not None,
        )
        try:
            return follow_build(events, progress.build_event), context
        except BuildFailed as exc:
            raise explain_failure(exc, spec, request.options) from None


def _verify(
    spec: ImageSpec, engine: ImageEngine, progress: Progress, *, gpu: bool, template_dir: Path
) -> list[Finding]:
    progress.phase(f"verifying {spec.tag} against row {spec.row.id}" + (" (GPU)" if gpu else ""))
    findings = verify_image(engine, spec.tag, spec, gpu=gpu, template_dir=template_dir)
    for finding in findings:
        progress.finding(finding)
    raise_on_mismatch(findings, spec.tag)
    return findings
