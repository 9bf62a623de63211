"""`gpudoctor render`: the Dockerfile of one resolved matrix row, without building anything.

`render_one` is the single-row path; a `--all` mode (every row into images/ plus a bake file)
plugs in next to it in `render_cmd`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gpudoctor.cli import build_options as opts

if TYPE_CHECKING:
    from gpudoctor.build.spec import BuildOptions
    from gpudoctor.matrix.model import ResolveRequest

RENDER_HELP = """Render the Dockerfile of one known-good matrix row (no Docker needed).

\b
  gpudoctor render --framework pytorch --cuda 12.4
  gpudoctor render --framework pytorch --version 2.5 --python 3.11 -o Dockerfile
  gpudoctor render --framework tensorflow --for-host        newest CUDA this host's driver runs
  gpudoctor render --framework pytorch --from host.json     for a recorded host

The row is resolved like `gpudoctor matrix resolve`. The Dockerfile COPYs requirements.txt and
verify_image.py from its build context; `gpudoctor build` assembles that context and builds.
"""


def register(app: typer.Typer) -> None:
    app.command("render", help=RENDER_HELP, short_help="Render a row's Dockerfile.")(render_cmd)


def render_cmd(
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
    pip: opts.PipOpt = None,
    base_image: opts.BaseImageOpt = None,
    index_url: opts.IndexUrlOpt = None,
    wheelhouse: opts.WheelhouseOpt = None,
    output: opts.OutputOpt = None,
) -> int:
    request = opts.resolve_request(
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
    )
    options = opts.build_options(
        pip=pip, base_image=base_image, index_url=index_url, wheelhouse=wheelhouse
    )
    return render_one(ctx, request, options, output)


def render_one(
    ctx: typer.Context,
    request: ResolveRequest,
    options: BuildOptions,
    output: Path | None,
) -> int:
    """Resolve one row, render its Dockerfile to `output` (or stdout); warnings to stderr."""
    from gpudoctor.build.pipeline import render_row, resolve_row
    from gpudoctor.cli.common import err, load_matrix, write_output
    from gpudoctor.resources import templates_dir

    row = resolve_row(load_matrix(ctx), request)
    spec, dockerfile = render_row(row, options, templates_dir())
    opts.print_warnings(spec.warnings)
    write_output(dockerfile, output)
    if output is not None:
        err(f"wrote {output} (row {row.id})")
    return 0
