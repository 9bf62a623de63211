"""`gpudoctor build`: resolve a known-good row, render, build with the Docker SDK, verify.

Only typer here (the `--help` budget); the builder, jinja2 and docker are imported when it runs.
"""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gpudoctor.cli import build_options as opts

if TYPE_CHECKING:
    from gpudoctor.builder.pipeline import BuildRequest

BUILD_HELP = """Build a known-good GPU framework image, then verify it against its matrix row.

\b
  gpudoctor build --framework pytorch --cuda 12.4
  gpudoctor build --framework pytorch --for-host
      the newest build this host runs
  gpudoctor build --framework pytorch --from host.json \\
      --tag registry.example/team/torch:1 --push
  gpudoctor build --framework pytorch --dry-run     print the Dockerfile only
  gpudoctor build --framework pytorch --from gh200.json
      an arm64 image for a Grace host
  gpudoctor build --framework pytorch --cuda 12.4 --download-wheels ./wheels
      where the index is reachable: fill a wheelhouse with the image's wheels
  gpudoctor build --framework pytorch --cuda 12.4 --wheelhouse ./wheels \\
      --base-image mirror.example/nvidia/cuda:12.4.1-runtime-ubuntu22.04
      offline: no index, a mirrored base image (the wheels are served to
      the build on 127.0.0.1, never sent as build context)

Steps: resolve the row (like `gpudoctor matrix resolve`), render templates/Dockerfile.j2, build
through the Docker daemon (DOCKER_HOST) with live progress on stderr, run the in-image verify
script and compare framework, CUDA, cuDNN, Python and labels with the row (with a GPU and the
NVIDIA runtime, also cuda.is_available() and one small kernel), then push with --push.
The image is for --platform (linux/amd64, linux/arm64), else the target host's, else
the daemon's; a daemon that cannot build it (another architecture, no QEMU binfmt
handler) is refused, never emulated behind your back.
Exit codes: 2 bad input, no matching row, or a wheelhouse without the image's wheels;
3 Docker daemon unreachable or unable to build the platform, or pip unable to download;
4 a build step failed or the image does not hold what the row promises; 5 gpudoctor
itself failed (a bug).
"""


def register(app: typer.Typer) -> None:
    app.command("build", help=BUILD_HELP, short_help="Build and verify a known-good image.")(
        build_cmd
    )


def build_cmd(
    ctx: typer.Context,
    *,
    framework: opts.FrameworkOpt = None,
    version: opts.VersionOpt = None,
    cuda: opts.CudaOpt = None,
    python: opts.PythonOpt = None,
    flavor: opts.FlavorOpt = None,
    distro: opts.DistroOpt = None,
    driver: opts.DriverOpt = None,
    for_host: opts.ForHostOpt = False,
    from_file: opts.FromOpt = None,
    allow_unverified: opts.AllowUnverifiedOpt = False,
    native_only: opts.NativeOnlyOpt = False,
    platform: opts.PlatformOpt = None,
    pip: opts.PipOpt = None,
    base_image: opts.BaseImageOpt = None,
    index_url: opts.IndexUrlOpt = None,
    wheelhouse: opts.WheelhouseOpt = None,
    download_wheels: opts.DownloadWheelsOpt = None,
    tag: opts.TagOpt = None,
    build_arg: Annotated[
        Optional[list[str]],
        typer.Option("--build-arg", metavar="KEY=VALUE", help="Build argument (repeatable)."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Build every layer anew.")] = False,
    push: Annotated[bool, typer.Option("--push", help="Push the tag after verifying.")] = False,
    skip_verify: Annotated[
        bool, typer.Option("--skip-verify", help="Do not run the image to verify it.")
    ] = False,
    gpus: Annotated[
        Optional[bool],
        typer.Option(
            "--gpus/--no-gpus",
            help="Verify with the GPUs (default: when the daemon has the nvidia runtime).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the Dockerfile; build nothing.")
    ] = False,
    output: Annotated[
        Optional[Path],
        typer.Option(
            "--output", "-o", metavar="FILE", help="With --dry-run: write the Dockerfile here."
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="Report format: text or json.")
    ] = "text",
) -> int:
    from gpudoctor.builder.pipeline import BuildRequest
    from gpudoctor.cli.common import check_choice, refuse_output_over_input, state

    check_choice("--format", fmt, ("text", "json"))
    check_dry_run(dry_run=dry_run, output=output is not None, push=push)
    refuse_output_over_input(output, [from_file, state(ctx).matrix_path])
    request = BuildRequest(
        resolve=opts.resolve_request(
            framework=framework,
            version=version,
            cuda=cuda,
            python=python,
            flavor=flavor,
            distro=distro,
            driver=driver,
            for_host=for_host,
            from_file=from_file,
            allow_unverified=allow_unverified,
            native_only=native_only,
            platform=platform,
        ),
        options=opts.build_options(
            pip=pip,
            base_image=base_image,
            index_url=index_url,
            wheelhouse=wheelhouse,
            tag=tag,
            build_args=build_arg,
        ),
        no_cache=no_cache,
        push=push,
        verify=not skip_verify,
        gpu=gpus,
    )
    if download_wheels is not None:
        check_download(download_wheels, dry_run=dry_run, push=push, wheelhouse=wheelhouse)
        return run_download(ctx, request, download_wheels, fmt)
    if dry_run:
        from gpudoctor.cli.render_cmd import render_one

        return render_one(ctx, request.resolve, request.options, output)
    return run_build(ctx, request, fmt)


def check_download(dest: Path, *, dry_run: bool, push: bool, wheelhouse: Optional[Path]) -> None:
    """--download-wheels fills a wheelhouse and builds nothing."""
    from gpudoctor.errors import UsageError

    clash = "--dry-run" if dry_run else "--push" if push else None
    if clash is not None:
        raise UsageError(
            f"--download-wheels downloads and builds nothing, so {clash} has nothing to do",
            hint=f"drop {clash}; build afterwards with --wheelhouse {dest}",
        )
    if wheelhouse is not None:
        raise UsageError(
            "--download-wheels fills a wheelhouse and --wheelhouse builds from one: give one",
            hint=f"first --download-wheels {dest}, then the same build with --wheelhouse {dest}",
        )


def run_download(ctx: typer.Context, request: "BuildRequest", dest: Path, fmt: str) -> int:
    """Resolve the row (for --platform, the target host, else this machine) and let pip fill
    `dest` with its wheels; the summary (or JSON) on stdout."""
    import json

    from gpudoctor.builder.download import download_wheels
    from gpudoctor.builder.pipeline import resolve_row
    from gpudoctor.builder.spec import make_spec
    from gpudoctor.cli.common import err, load_matrix

    matrix = load_matrix(ctx)
    opts.check_in_matrix(matrix, request.resolve)
    row = resolve_row(matrix, opts.this_machine_unless_named(request.resolve))
    spec = make_spec(row, request.options)
    wheels = download_wheels(spec, dest.resolve(), lambda line: err(f"==> {line}"))
    total = sum(p.stat().st_size for p in wheels)
    if fmt == "json":
        data = {
            "row": row.id,
            "platform": spec.platform,
            "wheelhouse": str(dest.resolve()),
            "wheels": [p.name for p in wheels],
            "bytes": total,
        }
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(
            f"{dest}: {len(wheels)} wheel(s), {total / 1e9:.2f} GB, for row {row.id} "
            f"({spec.platform}); build offline with the same options and --wheelhouse {dest}\n"
        )
    return 0


def check_dry_run(*, dry_run: bool, output: bool, push: bool) -> None:
    """-o writes the Dockerfile and builds nothing, so it goes with --dry-run only (a build that
    silently did not happen is worse than an error); --push needs a build."""
    from gpudoctor.errors import UsageError

    if output and not dry_run:
        raise UsageError(
            "build -o writes the Dockerfile only and builds nothing",
            hint="add --dry-run to write the Dockerfile (or use `gpudoctor render -o FILE`), "
            "or drop -o to build",
        )
    if dry_run and push:
        raise UsageError(
            "--dry-run builds nothing, so there is nothing to --push",
            hint="drop --dry-run to build and push, or drop --push",
        )


def run_build(ctx: typer.Context, request: "BuildRequest", fmt: str) -> int:
    from dataclasses import replace
    from pathlib import Path

    from gpudoctor.builder.binfmt import emulated_machines
    from gpudoctor.builder.pipeline import build_image
    from gpudoctor.cli.build_progress import StderrProgress
    from gpudoctor.cli.common import load_matrix
    from gpudoctor.docker.sdk_engine import DockerSdkEngine
    from gpudoctor.resources import templates_dir

    matrix = load_matrix(ctx)
    opts.check_in_matrix(matrix, request.resolve)
    engine = DockerSdkEngine.connect()
    request = replace(request, emulated=emulated_machines(Path("/")))
    # The failing step's log scrolled by live, once; the error line the CLI prints names the
    # step and the daemon's message (--format json carries the tail in its error object).
    with StderrProgress() as progress:
        report = build_image(request, matrix, engine, progress, templates_dir())
    sys.stdout.write(report.to_json() if fmt == "json" else report.to_text())
    return 0
