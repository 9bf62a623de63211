"""`gpudoctor matrix list | show | resolve | validate | update`: read, query and check the matrix.

Only typer is imported here (the `--help` budget); loading, resolving and presenting are imported
inside each command.
"""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

from pathlib import Path
from typing import Annotated, Optional

import typer

MATRIX_HELP = """Read, query and validate the compatibility matrix (matrices/compat.toml).

\b
  gpudoctor matrix list                       every table, summarised
  gpudoctor matrix list --framework pytorch   each build (release x CUDA)
  gpudoctor matrix show pytorch==2.5          one release, its CUDA variants
  gpudoctor matrix resolve --framework pytorch --cuda 12.4
  gpudoctor matrix validate my-matrix.toml    check your own matrix
  gpudoctor matrix update --check             does the matrix lag the index?
  gpudoctor --matrix my-matrix.toml matrix list   any command, your matrix
"""

LIST_HELP = """List the matrix: CUDA releases and their minimum drivers, CUDA majors,
GPU architectures, PyTorch and TensorFlow releases, base images and MIG GPUs.

\b
  gpudoctor matrix list
  gpudoctor matrix list --framework pytorch   one line per release x CUDA
  gpudoctor matrix list --format json | jq '.pytorch[].version'

--framework keeps only that framework: in text one line per build (release x CUDA variant,
with cuDNN and compiled architectures), in JSON only its array. Rows marked `?` carry
`verified = false`: `resolve` skips them unless --allow-unverified.
"""

SHOW_HELP = """Show one release (FRAMEWORK==VERSION) or one image row (ROW-ID).

\b
  gpudoctor matrix show pytorch==2.5       release, variants, sources, notes
  gpudoctor matrix show tensorflow==2.15
  gpudoctor matrix show pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime

A row id is FRAMEWORK-VERSION-cuXY-pyX.Y-DISTRO-FLAVOR, as `resolve` and `render` print it.
"""

RESOLVE_HELP = """Pick the newest known-good image row that meets every constraint.

\b
  gpudoctor matrix resolve --framework pytorch
  gpudoctor matrix resolve --framework pytorch --version 2.5 --cuda 12.1
  gpudoctor matrix resolve --framework pytorch --driver 535.104.05 \\
      --compute-capability 9.0
  gpudoctor matrix resolve --framework pytorch --from host.json
      a recorded host
  gpudoctor matrix resolve --framework tensorflow --python 3.11 --format json

--version and --cuda take a version ("2.5" means 2.5.*) or a PEP 440 specifier
(">=2.4,<2.6"); a full CUDA release ("12.4.1") pins the nvidia/cuda base image. --driver and
--compute-capability name a target host: the newest release with a build that runs there on
every GPU wins, minor-version compatibility counting as running (cu12x builds on drivers >=
525.60.13) and a natively supported build preferred within a release; --native-only counts
native builds only. Defaults: the newest Python the release supports, the runtime flavor, the newest
Ubuntu the base image offers. With no match, the nearest rows are listed with the reason each
was rejected, and the exit code is 2.
"""

VALIDATE_HELP = """Check a matrix file: TOML syntax, every key and type, versions, duplicates
and references between tables. Prints an ok line with counts, or every problem (exit 2).
A signature catalogue (a file of [[signature]] tables, like matrices/signatures.toml) is
checked as one: every key, a source for every entry, patterns free of nested repeats,
templates that name the pattern's groups, examples the pattern finds. An XID catalogue
([[xid]] and [[action]] tables, like matrices/xid.toml) likewise, and so is the CUDA error
catalogue ([[error]] and [[part]] tables, matrices/cuda_errors.toml).

\b
  gpudoctor matrix validate my-matrix.toml
  gpudoctor matrix validate          the --matrix file, or the shipped one
  gpudoctor matrix validate matrices/signatures.toml
  gpudoctor matrix validate matrices/xid.toml
  gpudoctor matrix validate matrices/cuda_errors.toml

The format is documented in docs/matrix-format.md.
"""

_FORMAT_HELP = "Output format: text or json."


def register(app: typer.Typer) -> None:
    matrix_app = typer.Typer(
        name="matrix",
        help=MATRIX_HELP,
        no_args_is_help=True,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    matrix_app.command("list", help=LIST_HELP, short_help="List the matrix tables.")(list_cmd)
    matrix_app.command("show", help=SHOW_HELP, short_help="Show one release or row.")(show_cmd)
    matrix_app.command(
        "resolve", help=RESOLVE_HELP, short_help="Pick the newest row meeting constraints."
    )(resolve_cmd)
    matrix_app.command(
        "validate", help=VALIDATE_HELP, short_help="Check a matrix file for errors."
    )(validate_cmd)
    from gpudoctor.cli.matrix_update import UPDATE_HELP, update_cmd

    matrix_app.command(
        "update", help=UPDATE_HELP, short_help="Propose rows the matrix lacks, from an index."
    )(update_cmd)
    app.add_typer(matrix_app, name="matrix", short_help="Read, query and validate the matrix.")


def list_cmd(
    ctx: typer.Context,
    framework: Annotated[
        Optional[str],
        typer.Option(
            "--framework", metavar="NAME", help="Only this framework: pytorch, tensorflow."
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help=_FORMAT_HELP)] = "text",
) -> int:
    from gpudoctor.cli import matrix_views as views
    from gpudoctor.cli.common import check_choice, load_matrix

    check_choice("--format", fmt, ("text", "json"))
    if framework is not None:
        from gpudoctor.matrix.inputs import framework_name

        framework = framework_name(framework)
    matrix = load_matrix(ctx)
    typer.echo(
        views.list_json(matrix, framework) if fmt == "json" else views.list_text(matrix, framework)
    )
    return 0


def show_cmd(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(metavar="ROW-ID|FRAMEWORK==VERSION", help="What to show.")
    ],
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help=_FORMAT_HELP)] = "text",
) -> int:
    from gpudoctor.cli.common import check_choice, load_matrix
    from gpudoctor.cli.matrix_show import show

    check_choice("--format", fmt, ("text", "json"))
    typer.echo(show(load_matrix(ctx), target, fmt))
    return 0


def resolve_cmd(
    ctx: typer.Context,
    *,
    framework: Annotated[
        str,
        typer.Option(
            "--framework", metavar="NAME[==VER]", help="pytorch or tensorflow, e.g. pytorch==2.5."
        ),
    ],
    version: Annotated[
        Optional[str],
        typer.Option("--version", metavar="SPEC", help="Framework version or specifier."),
    ] = None,
    cuda: Annotated[
        Optional[str], typer.Option("--cuda", metavar="SPEC", help="CUDA version or specifier.")
    ] = None,
    python: Annotated[
        Optional[str], typer.Option("--python", metavar="X.Y", help="Python version, e.g. 3.11.")
    ] = None,
    driver: Annotated[
        Optional[str],
        typer.Option("--driver", metavar="VERSION", help="Target host's driver, e.g. 535.104.05."),
    ] = None,
    compute_capability: Annotated[
        Optional[list[str]],
        typer.Option(
            "--compute-capability",
            metavar="X.Y",
            help="Target GPU's compute capability (repeat for several GPUs).",
        ),
    ] = None,
    flavor: Annotated[
        Optional[str],
        typer.Option("--flavor", metavar="FLAVOR", help="runtime (default) or devel."),
    ] = None,
    distro: Annotated[
        Optional[str], typer.Option("--distro", metavar="DISTRO", help="e.g. ubuntu22.04.")
    ] = None,
    allow_unverified: Annotated[
        bool,
        typer.Option(
            "--allow-unverified",
            help="Also consider builds whose existence no primary source settles, and base "
            "images or CUDA rows marked verified = false.",
        ),
    ] = False,
    native_only: Annotated[
        bool,
        typer.Option(
            "--native-only", help="Only builds the driver runs natively (no minor-version compat)."
        ),
    ] = False,
    from_file: Annotated[
        Optional[Path],
        typer.Option(
            "--from",
            metavar="PATH",
            help="Target a recorded host: a snapshot, a pasted text report, or a folder of "
            "snapshots (the newest build that runs on every readable one).",
        ),
    ] = None,
    platform: Annotated[
        Optional[str],
        typer.Option(
            "--platform",
            metavar="OS/ARCH",
            help="Target platform: linux/amd64 (default) or linux/arm64 (also amd64, aarch64).",
        ),
    ] = None,
    machine: Annotated[
        Optional[str], typer.Option("--machine", metavar="MACHINE", hidden=True)
    ] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help=_FORMAT_HELP)] = "text",
) -> int:
    from dataclasses import replace

    from gpudoctor.cli import matrix_views as views
    from gpudoctor.cli.build_options import check_in_matrix, target_host
    from gpudoctor.cli.common import check_choice, load_matrix
    from gpudoctor.compat.request import ResolveRequest
    from gpudoctor.matrix.inputs import framework_and_version, refuse_rocm

    check_choice("--format", fmt, ("text", "json"))
    refuse_rocm("--cuda", cuda)
    name, version = framework_and_version(framework, version)
    assert name is not None  # --framework is required
    host = None
    if from_file is not None:
        host = target_host(False, from_file, load_matrix(ctx).architectures)
    if host is not None and (driver or compute_capability):
        from gpudoctor.errors import UsageError

        raise UsageError(
            "--from names the target host, and --driver/--compute-capability describe one",
            hint="give either --from or --driver/--compute-capability",
        )
    request = ResolveRequest(
        framework=name,
        version=version,
        cuda=cuda,
        python=python,
        driver=driver,
        compute_capabilities=tuple(compute_capability or ()),
        flavor=flavor,
        distro=distro,
        allow_unverified=allow_unverified,
        native_only=native_only,
        machine=_machine(platform, machine),
    )
    if host is not None:
        request = replace(
            request,
            driver=host.driver,
            compute_capabilities=host.compute_capabilities,
            host=host,
        )
    matrix = load_matrix(ctx)
    check_in_matrix(matrix, request)
    typer.echo(views.resolve(matrix, request, fmt))
    return 0


def validate_cmd(
    ctx: typer.Context,
    file: Annotated[
        Optional[Path],
        typer.Argument(
            metavar="[FILE]", help="Matrix file (default: --matrix, else the shipped one)."
        ),
    ] = None,
) -> int:
    from gpudoctor.cli import matrix_views as views
    from gpudoctor.cli.common import state
    from gpudoctor.matrix.load import load_matrix

    path = file or state(ctx).matrix_path
    kind = _document_kind(path) if path is not None else "matrix"
    if path is not None and kind == "signature":
        from gpudoctor.matrix.signatures import load_signatures

        catalogue = load_signatures(path)
        unverified = sum(not s.verified for s in catalogue.signatures)
        typer.echo(
            f"ok: {path}: {len(catalogue.signatures)} signatures, each with its source"
            + (f" ({unverified} marked verified = false)" if unverified else "")
        )
        return 0
    if path is not None and kind == "xid":
        from gpudoctor.matrix.xid import load_xid_catalogue

        xids = load_xid_catalogue(path)
        unverified = sum(not e.verified for e in xids.xids)
        typer.echo(
            f"ok: {path}: {len(xids.xids)} XIDs and {len(xids.actions)} actions, each XID with "
            "its source" + (f" ({unverified} marked verified = false)" if unverified else "")
        )
        return 0
    if path is not None and kind == "cuda-error":
        from gpudoctor.matrix.cuda_errors import load_cuda_errors

        errors = load_cuda_errors(path)
        typer.echo(
            f"ok: {path}: {len(errors.errors)} CUDA error codes in {len(errors.parts)} parts, "
            "each with its source"
        )
        return 0
    matrix = load_matrix(path)
    typer.echo(views.validate_line(matrix))
    return 0


def _document_kind(path: Path) -> str:
    """Which data file this is, told by its tables: "signature" ([[signature]]), "xid"
    ([[xid]] or [[action]]), "cuda-error" ([[error]] or [[part]]), else "matrix" (whose
    loader words any read error)."""
    from stat import S_ISREG

    try:
        if not S_ISREG(path.stat().st_mode):
            return "matrix"  # a FIFO would block: the matrix loader refuses it with its words
        with path.open("rb") as stream:
            head = stream.read(1 << 20).decode("utf-8", errors="replace")
    except OSError:
        return "matrix"
    tables = {line.strip() for line in head.splitlines()}
    if "[[signature]]" in tables:
        return "signature"
    if tables & {"[[xid]]", "[[action]]"}:
        return "xid"
    if tables & {"[[error]]", "[[part]]"}:
        return "cuda-error"
    return "matrix"


def _machine(platform: Optional[str], machine: Optional[str]) -> Optional[str]:
    """`--platform` (and its hidden alias `--machine`), read by the one rule (matrix.inputs)."""
    from gpudoctor.errors import UsageError
    from gpudoctor.matrix.inputs import machine_option

    if platform is not None and machine is not None:
        raise UsageError("--platform and --machine name the same thing", hint="give --platform")
    if machine is not None:
        return machine_option(machine, "--machine")
    return machine_option(platform, "--platform")
