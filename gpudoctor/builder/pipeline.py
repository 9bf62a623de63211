"""build_image: resolve -> spec -> render -> context -> build -> verify -> push -> BuildReport.

Each step is its own function in its own module; this one only chains them and tells `progress`
what happens. The engine and the matrix are parameters: only the CLI wires the real ones.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gpudoctor.builder.engine import (
    BuildEvent,
    BuildOutcome,
    DaemonInfo,
    ImageEngine,
    follow_build,
)
from gpudoctor.builder.render import render_dockerfile
from gpudoctor.builder.report import BuildReport
from gpudoctor.builder.spec import BuildOptions, ImageSpec, make_spec
from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.findings import Finding
from gpudoctor.matrix.model import Matrix

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

    def finding(self, finding: Finding) -> None:
        """One verify result."""


def resolve_row(matrix: Matrix, request: ResolveRequest) -> ResolvedRow:
    """The newest row meeting every constraint (NoMatchingRow lists the nearest otherwise)."""
    from gpudoctor.compat.resolve import resolve

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
        from dataclasses import replace

        from gpudoctor.matrix.platforms import machine_of

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
    for warning in spec.warnings:
        progress.phase(f"warning: {warning}")
    daemon = engine.ping()
    foreign = check_platform(spec.platform, daemon, request.emulated, progress)
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
    )


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
    from gpudoctor.errors import EnvironmentUnavailable
    from gpudoctor.matrix.platforms import DOCKER_PLATFORM, machine_of

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
    from gpudoctor.builder.context import write_context

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
        )
        return follow_build(events, progress.build_event), context


def _verify(
    spec: ImageSpec, engine: ImageEngine, progress: Progress, *, gpu: bool, template_dir: Path
) -> list[Finding]:
    from gpudoctor.builder.verify import raise_on_mismatch, verify_image

    progress.phase(f"verifying {spec.tag} against row {spec.row.id}" + (" (GPU)" if gpu else ""))
    findings = verify_image(engine, spec.tag, spec, gpu=gpu, template_dir=template_dir)
    for finding in findings:
        progress.finding(finding)
    raise_on_mismatch(findings, spec.tag)
    return findings
