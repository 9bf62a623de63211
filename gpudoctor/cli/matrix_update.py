"""`gpudoctor matrix update`: propose the rows the matrix lacks or has wrong, as a diff.

Imports only typer at module level (the `--help` budget).
"""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

import difflib
import math
import sys
from typing import Annotated, Optional

import typer

UPDATE_HELP = """Compare the matrix with a package index and propose the PyTorch and TensorFlow
rows it lacks or has wrong, as a diff to the matrix file, each change with its evidence.

\b
  gpudoctor matrix update                    print the proposed diff (writes nothing)
  gpudoctor matrix update --check            exit 1 when the matrix lags the index, 0 when current
  gpudoctor matrix update --write            apply the diff to the matrix file
  gpudoctor matrix update --index-url https://mirror.example/simple

The index is read through the simple repository API pip uses (PEP 691 JSON or PEP 503 HTML);
the default is pip's configured index (PIP_INDEX_URL or index-url in pip.conf), so it works
behind a mirror. Facts come from the wheels, read without installing or importing them: the
Pythons with Linux x86_64 wheels, METADATA pins (cuDNN, TensorFlow's [and-cuda] CUDA), the
CUDA in torch/version.py, and for new or newer releases the compiled architectures in
libtorch_cuda.so's fatbins (wheels are read through HTTP range requests). Exit codes: 0 current
(or the diff printed / written), 1 with --check when the matrix lags, 2 bad input, 3 the index
is unreachable or serves a page or wheel that cannot be read. Every read is bounded: each
request must complete within --timeout seconds, a page within 16 MiB, a METADATA within 4 MiB.
Credentials in the index URL (https://user:password@host/simple) are sent as HTTP Basic auth to
that host only and never printed.
"""


def _timeout(value: float) -> float:
    # nan passes click's range checks (every comparison with nan is false); inf never ends.
    if not math.isfinite(value) or not 0.1 <= value <= 3600.0:
        raise typer.BadParameter(f"{value} is not a number of seconds from 0.1 to 3600")
    return value


def update_cmd(
    ctx: typer.Context,
    *,
    index_url: Annotated[
        Optional[str],
        typer.Option("--index-url", metavar="URL", help="Simple index (default: pip's)."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 when the matrix lags the index.")
    ] = False,
    write: Annotated[bool, typer.Option("--write", help="Apply the proposed diff.")] = False,
    arch_lists: Annotated[
        bool,
        typer.Option(
            "--arch-lists",
            help="Also re-read the compiled architectures of rows already at the index's "
            "newest patch (downloads each CUDA library, ~0.5 GB per release).",
        ),
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            metavar="S",
            callback=_timeout,
            help="Deadline of each request to the index, the whole reply (default 60).",
        ),
    ] = 60.0,
) -> int:
    from gpudoctor.cli.common import state
    from gpudoctor.errors import MatrixError, UsageError
    from gpudoctor.matrix.load import load_matrix, parse_matrix
    from gpudoctor.matrix.update import Updater
    from gpudoctor.redaction import url_without_credentials
    from gpudoctor.resources import default_matrix_path
    from gpudoctor.safe_text import printable
    from gpudoctor.wheels.index import pip_index_url

    if check and write:
        raise UsageError(
            "--check and --write exclude each other",
            hint="run --check in CI, and --write where the matrix file is edited",
        )
    path = state(ctx).matrix_path or default_matrix_path()
    matrix = load_matrix(path)
    url = index_url or pip_index_url()
    shown = url_without_credentials(url)  # the credentials go as Basic auth, never to a screen
    updater = Updater(matrix, url, arch_lists=arch_lists, log=_log, deadline_s=timeout)
    proposals = updater.proposals()
    old = path.read_text(encoding="utf-8").splitlines()
    new = old
    for proposal in proposals:
        typer.echo(f"* {printable(proposal.summary)}")
        for line in proposal.evidence:
            typer.echo(f"    evidence: {printable(line)}")
        if proposal.edit is not None:
            new = proposal.edit(new)
    if not proposals:
        typer.echo(f"matrix is current with {shown}")
        return 0
    diff = list(
        difflib.unified_diff(old, new, f"a/{path.name}", f"b/{path.name}", lineterm="", n=2)
    )
    typer.echo("\n".join(map(printable, diff)) if diff else "(no row can be written; see above)")
    text = "\n".join(new) + "\n"
    if diff:
        try:
            parse_matrix(text, path)
        except MatrixError as exc:
            raise MatrixError(
                f"the proposed matrix would not validate: {exc.message}",
                hint="write the rows by hand from the evidence above",
            ) from exc
    if write and diff:
        from gpudoctor.cli.common import write_output

        write_output(text, path)  # atomic: an interrupted write never leaves half a matrix
        typer.echo(f"wrote {path} ({len(proposals)} changes); review with git diff")
    if check:
        typer.echo(f"matrix lags {shown}: {len(proposals)} changes", err=True)
        return 1
    return 0


def _log(line: str) -> None:
    from gpudoctor.redaction import url_without_credentials
    from gpudoctor.safe_text import printable

    sys.stderr.write(f"  {printable(url_without_credentials(line))}\n")
