"""`gpudoctor render`: the Dockerfile of one resolved matrix row, or (`--all`) of every row.

`render_one` is the single-row path; `render_all` writes every supported row into images/ with
its build context, an index (README.md) and a bake file (gpudoctor/builder/images.py).
"""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gpudoctor.cli import build_options as opts
from gpudoctor.cli.common import refuse_output_over_input, state
from gpudoctor.errors import UsageError

if TYPE_CHECKING:
    from gpudoctor.builder.spec import BuildOptions
    from gpudoctor.compat.request import ResolveRequest

RENDER_HELP = """Render the Dockerfile of one known-good matrix row, or of all (no Docker needed).

\b
  gpudoctor render --framework pytorch --cuda 12.4
  gpudoctor render --framework pytorch==2.5 --python 3.11 -o Dockerfile
  gpudoctor render --framework tensorflow --for-host
      the newest build this host runs
  gpudoctor render --framework pytorch --from host.json   for a recorded host
  gpudoctor render --all --out images     every supported row + bake file

The row is resolved like `gpudoctor matrix resolve`. The Dockerfile COPYs requirements.txt from
its build context; `gpudoctor build` assembles that context, builds and verifies the image.
`--all` writes each row's complete build context to DIR/FRAMEWORK/VERSION/CUDA-DISTRO-FLAVOR/,
DIR/README.md (an index) and DIR/docker-bake.json (`docker buildx bake -f DIR/docker-bake.json
pytorch`), and removes folders of rows no longer supported (only files it wrote itself).
"""

AllOpt = Annotated[
    bool, typer.Option("--all", help="Render every supported row into --out (and a bake file).")
]
OutOpt = Annotated[
    Optional[Path],
    typer.Option("--out", metavar="DIR", help="With --all: the output folder (default images)."),
]
RegistryOpt = Annotated[
    Optional[str],
    typer.Option(
        "--registry",
        metavar="HOST/NS",
        help="With --all: tag images REGISTRY/gpudoctor/FW:TAG in the bake file.",
    ),
]
DEFAULT_OUT = Path("images")


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
    native_only: opts.NativeOnlyOpt = False,
    platform: opts.PlatformOpt = None,
    pip: opts.PipOpt = None,
    base_image: opts.BaseImageOpt = None,
    index_url: opts.IndexUrlOpt = None,
    wheelhouse: opts.WheelhouseOpt = None,
    output: opts.OutputOpt = None,
    all_rows: AllOpt = False,
    out: OutOpt = None,
    registry: RegistryOpt = None,
) -> int:
    single = {
        "--framework": framework, "--version": version, "--cuda": cuda, "--python": python,
        "--flavor": flavor, "--distro": distro, "--driver": driver, "--for-host": for_host,
        "--from": from_file, "--allow-unverified": allow_unverified, "--pip": pip,
        "--base-image": base_image, "--index-url": index_url, "--wheelhouse": wheelhouse,
        "--output": output, "--platform": platform,
    }  # fmt: skip
    check_mode(all_rows, [name for name, value in single.items() if value], out, registry)
    refuse_output_over_input(output, [from_file, state(ctx).matrix_path])
    if all_rows:
        return render_all(ctx, out or DEFAULT_OUT, registry)
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
        native_only=native_only,
        platform=platform,
    )
    options = opts.build_options(
        pip=pip, base_image=base_image, index_url=index_url, wheelhouse=wheelhouse
    )
    return render_one(ctx, request, options, output)


def check_mode(
    all_rows: bool, single: list[str], out: Optional[Path], registry: Optional[str]
) -> None:
    """--all renders the matrix as it is: no single-row option goes with it, and its own
    options (--out, --registry) go with nothing else."""
    if all_rows and single:
        raise UsageError(
            f"--all and {', '.join(single)} cannot go together: --all renders every "
            "supported row as the matrix has it",
            hint="drop them for --all, or drop --all to render one row",
        )
    if not all_rows and (out is not None or registry is not None):
        raise UsageError(
            "--out and --registry only apply with --all",
            hint="use -o FILE for one row, or add --all",
        )


def render_one(
    ctx: typer.Context,
    request: "ResolveRequest",
    options: "BuildOptions",
    output: Optional[Path],
) -> int:
    """Resolve one row, render its Dockerfile to `output` (or stdout); warnings to stderr."""
    from gpudoctor.builder.pipeline import render_row, resolve_row
    from gpudoctor.cli.common import load_matrix, write_output, wrote
    from gpudoctor.resources import templates_dir

    matrix = load_matrix(ctx)
    opts.check_in_matrix(matrix, request)
    row = resolve_row(matrix, opts.this_machine_unless_named(request))
    spec, dockerfile = render_row(row, options, templates_dir())
    opts.print_warnings(spec.warnings)
    if row.unread:
        from gpudoctor.compat.install import unread_clause

        typer.echo(
            f"note: row {row.id}: {unread_clause(row.unread).strip(' ()')}; `gpudoctor build` "
            "verifies them inside the image (a mismatch fails with exit 4)",
            err=True,
        )
    write_output(dockerfile, output)
    wrote(output, f"the Dockerfile of row {row.id}")
    return 0


def render_all(ctx: typer.Context, out: Path, registry: Optional[str]) -> int:
    """Render every supported row into `out`; one summary line (and warnings) on stderr."""
    from gpudoctor.builder.images import render_images
    from gpudoctor.builder.images_tree import write_tree
    from gpudoctor.cli.common import err, load_matrix
    from gpudoctor.resources import templates_dir

    image_set = render_images(
        load_matrix(ctx), templates_dir(), registry=registry, context_root=context_root(out)
    )
    opts.print_warnings(image_set.warnings)
    result = write_tree(out, image_set.files)
    for folder in result.kept:
        err(f"kept {out / folder}: a stale image folder holding files gpudoctor did not write")
    err(
        f"{len(image_set.images)} images written to {out} ({len(result.changed)} files "
        f"changed), {result.removed_images} stale removed"
    )
    return 0


def context_root(out: Path) -> str:
    """`out` as bake will see it from the working directory: relative when inside it.

    Raises:
        UsageError: the path is not UTF-8; the bake file and the index, text files, name it.
    """
    import os

    try:
        os.fsencode(os.path.abspath(out)).decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(
            f"--out {out!r} is not a UTF-8 path: the bake file and README.md name it as text",
            hint="choose an output folder whose path is UTF-8",
        ) from None
    absolute = Path(os.path.abspath(out))
    try:
        return absolute.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return absolute.as_posix()
