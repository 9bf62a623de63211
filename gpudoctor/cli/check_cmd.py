"""`gpudoctor check`: judge this host (or a recorded snapshot) and report every problem with its
fix. Exit codes: 0 nothing failed; 1 an error finding or an unmet requirement (with --strict,
warnings and unknowns too); 2 bad usage or input; 3 the Docker daemon unreachable (--image);
5 a check crashed (gpudoctor itself failed)."""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gpudoctor.children import DEEP_TIMEOUT_S
from gpudoctor.cli.common import (
    DeepOpt,
    DeepTimeoutOpt,
    check_choice,
    load_matrix,
    refuse_output_over_input,
    state,
    write_output,
    wrote,
)
from gpudoctor.report import FLEET_FORMATS, FORMATS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpudoctor.checks import CheckRun, Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.fleet_summary import FleetSummary
    from gpudoctor.matrix.model import Architecture, Matrix

HELP = """Check this host: driver, GPUs, platform, container runtime and the installed
frameworks against the compatibility matrix; every problem comes with its fix.

\b
  gpudoctor check
  gpudoctor check --framework pytorch==2.5 --cuda 12.4   will it run here?
  gpudoctor check --require 'driver>=550' --require 'gpus>=8' \\
      --format junit -o report.xml
  gpudoctor check --from host.json                      judge a recorded host
  gpudoctor check --from report.txt --format markdown
      judge a pasted report (collect_env, nvidia-smi, ...)
  gpudoctor check --deep                                also import frameworks
  gpudoctor check --image registry.example/team/torch:1
      will this image run here?

--deep goes further: it imports each installed framework (torch, tensorflow,
jax) in a subprocess with this Python, asks it for CUDA and runs one small
kernel on GPU 0, so it creates a CUDA context (the default run never does). It
costs the frameworks' import time (torch: seconds), each bounded by
--deep-timeout (default 60 s). Not with --from.

\b
A pasted report (--from report.txt, or --from - for standard
input) may hold any mix of torch's collect_env, nvidia-smi (the
table, -q, -q -x, -L), pip list / pip freeze,
/proc/driver/nvidia/version, tf.sysconfig.get_build_info(),
TensorFlow's GPU log lines, the host's tools (docker info,
kubectl describe node, nvidia-container-cli info, dcgmi, os-release,
ibstat, ...) and error lines; each is recognised by its shape, and
what the report does not show stays unknown.
--format markdown writes a reply for an issue thread.

Requirement keys: driver, cuda, gpus, memory (GiB/GB/MiB/MB),
compute_capability, mig (on|off), iommu (on|off), runtime (nvidia|cdi|...);
operators >= <= > < == != =.

Exit codes: 0 nothing failed; 1 an error finding, or a requirement unmet or not judgeable (with
--strict, warnings and unknowns too); 2 usage or bad input (bad flag, expression, snapshot or
matrix); 3 the Docker daemon unreachable (--image); 5 gpudoctor itself failed (a check crashed:
a bug; the message says how to report it).
"""


def register(app: typer.Typer) -> None:
    app.command("check", help=HELP, no_args_is_help=False)(check)


def check(  # noqa: PLR0917 - typer maps each option to a parameter
    ctx: typer.Context,
    framework: Annotated[
        Optional[str],
        typer.Option(
            "--framework", metavar="NAME[==VER]", help="Judge this framework: pytorch==2.5."
        ),
    ] = None,
    cuda: Annotated[
        Optional[str], typer.Option("--cuda", metavar="VER", help="Judge this CUDA version: 12.1.")
    ] = None,
    require: Annotated[
        Optional[list[str]],
        typer.Option(
            "--require", metavar="EXPR", help="A requirement, e.g. 'driver>=550' (repeatable)."
        ),
    ] = None,
    from_files: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--from",
            metavar="FILE",
            help="Judge a snapshot written by `gpudoctor snapshot`, or a pasted text report"
            " (collect_env, nvidia-smi, pip list, error lines; - reads standard input); repeat"
            " it, or name a folder of snapshots, for a fleet report.",
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help=f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}.",
        ),
    ] = "text",
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail (exit 1) on warnings and unknowns too.")
    ] = False,
    only: Annotated[
        Optional[str],
        typer.Option("--only", metavar="CODE,..", help="Report only these check codes."),
    ] = None,
    skip: Annotated[
        Optional[str],
        typer.Option("--skip", metavar="CODE,..", help="Leave out these check codes."),
    ] = None,
    list_codes: Annotated[
        bool, typer.Option("--list", help="List every check code and exit.")
    ] = False,
    output: Annotated[
        Optional[Path],
        typer.Option("-o", "--output", metavar="FILE", help="Write the report to FILE."),
    ] = None,
    verbose: Annotated[
        bool, typer.Option("-v", "--verbose", help="Show every finding with its evidence.")
    ] = False,
    deep: DeepOpt = False,
    deep_timeout: DeepTimeoutOpt = DEEP_TIMEOUT_S,
    image: Annotated[
        Optional[str],
        typer.Option(
            "--image",
            metavar="REF",
            help="Will this built image run here (or on the --from host)? Reads its labels, "
            "else its framework by one bounded `docker run --rm`.",
        ),
    ] = None,
    native_only: Annotated[
        bool,
        typer.Option(
            "--native-only",
            help="With --framework/--cuda: only builds the driver runs natively count (not by "
            "minor-version compatibility).",
        ),
    ] = False,
) -> int:
    from gpudoctor.checks import run_checks, select_codes
    from gpudoctor.checks.catalogue import listing

    paths = from_files or []
    refuse_output_over_input(output, [*paths, state(ctx).matrix_path])
    if list_codes:
        write_output(listing(), output)
        wrote(output, "the list of check codes")
        return 0
    check_choice("--format", fmt, FORMATS)
    intent = build_intent(framework, cuda, require or [], native_only=native_only)
    only_codes = select_codes("--only", (only or "").split(","))
    skip_codes = select_codes("--skip", (skip or "").split(","))
    fleet = False
    if paths:  # fleet_summary and its dataclasses only when --from names something
        from gpudoctor.fleet_summary import is_fleet

        fleet = is_fleet(paths)
    refuse_deep_with_from(deep, paths)
    if intent.framework or intent.cuda:
        # A release or CUDA the matrix lacks is bad input: say so before probing anything.
        from gpudoctor.matrix.inputs import check_asked

        check_asked(load_matrix(ctx), intent.framework, intent.framework_version, intent.cuda)
    if image is not None:
        intent = with_image(intent, image, fleet=fleet)
    if fleet:
        return check_fleet(
            ctx, paths, intent, fmt, only=only_codes, skip=skip_codes, strict=strict, output=output
        )
    matrix = load_matrix(ctx)
    if paths:
        from gpudoctor.pasted.load import load_host_list

        hosts = load_host_list(paths[0], matrix.architectures)
        if len(hosts) > 1:  # a paste of reports that disagree: its hosts are a fleet
            return report_fleet_of_one_file(
                hosts,
                matrix,
                intent,
                fmt,
                only=only_codes,
                skip=skip_codes,
                strict=strict,
                output=output,
            )
        facts = hosts[0][1]
    else:
        facts = read_facts(None, deep=deep, deep_timeout_s=deep_timeout)
    run = run_checks(facts, matrix, intent, only=only_codes, skip=skip_codes, strict=strict)
    verbose = verbose or state(ctx).verbose
    write_output(render(run, facts, intent, fmt, verbose=verbose, to_file=output), output)
    wrote(output, f"the {fmt} report (exit {run.exit_code})")
    report_crashes(run, debug=state(ctx).debug)
    return run.exit_code


def report_crashes(run: "CheckRun", *, debug: bool) -> None:
    """A check that raised: one line naming it and how to report it (exit 5); the exception and
    its traceback only under --debug."""
    from gpudoctor.exitcodes import REPORT_BUG

    for crash in run.crashes:
        if debug:
            sys.stderr.write(crash.traceback or f"{crash.error}\n")
        what = "its answer is unknown" if crash.kind == "check" else "what it reads is unknown"
        sys.stderr.write(
            f"error: {crash.kind} {crash.check} crashed (a bug of gpudoctor, not a problem of "
            f"this host); {what}\n"
        )
    if run.crashes:
        sys.stderr.write(f"hint: {REPORT_BUG}\n")


def check_fleet(
    ctx: typer.Context,
    paths: list[Path],
    intent: "Intent",
    fmt: str,
    *,
    only: frozenset[str],
    skip: frozenset[str],
    strict: bool,
    output: Optional[Path],
) -> int:
    """Several snapshots: one report grouped by problem; exit 1 when any host fails."""
    from gpudoctor.errors import UsageError
    from gpudoctor.fleet_summary import judge_fleet

    if fmt not in FLEET_FORMATS:
        raise UsageError(
            f"--format {fmt} reports one host, and --from names several",
            hint="use --format text or --format json for a fleet, or one --from per run",
        )
    summary, exit_code = judge_fleet(
        paths, load_matrix(ctx), intent, only=only, skip=skip, strict=strict
    )
    return _write_fleet(summary, exit_code, fmt, output)


def _write_fleet(summary: "FleetSummary", exit_code: int, fmt: str, output: Optional[Path]) -> int:
    """A fleet's report (text or JSON) written out, and a crashed check said once on stderr:
    the same for a folder of snapshots and for the several hosts of one pasted report."""
    from gpudoctor.exitcodes import REPORT_BUG, ExitCode
    from gpudoctor.report.fleet import render_fleet_json, render_fleet_text

    text = render_fleet_json(summary) if fmt == "json" else render_fleet_text(summary)
    write_output(text, output)
    wrote(output, f"the {fmt} fleet report (exit {exit_code})")
    if exit_code == ExitCode.INTERNAL:
        sys.stderr.write(
            "error: a check crashed on at least one host (a bug of gpudoctor); its answer there "
            "is unknown: `gpudoctor check --debug --from FILE` on that host's file shows which\n"
            f"hint: {REPORT_BUG}\n"
        )
    return exit_code


def report_fleet_of_one_file(
    hosts: "Sequence[tuple[str, HostFacts]]",
    matrix: "Matrix",
    intent: "Intent",
    fmt: str,
    *,
    only: frozenset[str],
    skip: frozenset[str],
    strict: bool,
    output: Optional[Path],
) -> int:
    """The hosts of one pasted report judged as a fleet (text or JSON, like a folder)."""
    from gpudoctor.errors import UsageError
    from gpudoctor.fleet_summary import judge_hosts

    if fmt not in FLEET_FORMATS:
        raise UsageError(
            f"--format {fmt} reports one host, and the report holds {len(hosts)} hosts (its "
            "reports disagree)",
            hint="use --format text or --format json, or paste one host's report per file",
        )
    summary, exit_code = judge_hosts(hosts, matrix, intent, only=only, skip=skip, strict=strict)
    return _write_fleet(summary, exit_code, fmt, output)


def build_intent(
    framework: Optional[str], cuda: Optional[str], require: list[str], *, native_only: bool = False
) -> "Intent":
    from gpudoctor.checks import Intent
    from gpudoctor.checks.requirements import parse_requirement
    from gpudoctor.matrix.inputs import parse_cuda, parse_framework

    name, version = parse_framework(framework) if framework else (None, None)
    return Intent(
        framework=name,
        framework_version=version,
        cuda=parse_cuda(cuda) if cuda else None,
        requirements=tuple(parse_requirement(r) for r in require),
        native_only=native_only,
    )


def with_image(intent: "Intent", reference: str, *, fleet: bool) -> "Intent":
    """The intent with the image's facts, read through the Docker daemon (exit 3 when it is
    unreachable)."""
    from dataclasses import replace

    from gpudoctor.builder.validate import image_reference
    from gpudoctor.docker.sdk_engine import DockerSdkEngine
    from gpudoctor.errors import UsageError
    from gpudoctor.probes.image import probe_image

    if fleet:
        raise UsageError(
            "--image judges one host, and --from names several",
            hint="give one --from (or none, for this host) with --image",
        )
    engine = DockerSdkEngine.connect()
    return replace(intent, image=probe_image(engine, image_reference(reference, "--image")))


def refuse_deep_with_from(deep: bool, paths: list[Path]) -> None:
    """--deep probes this host; with --from nothing is probed, so the two do not mix."""
    if deep and paths:
        from gpudoctor.errors import UsageError

        raise UsageError(
            "--deep imports the frameworks on this host, and --from judges a recorded "
            "snapshot: drop one of them",
            hint="record a deep snapshot where the frameworks are: `gpudoctor snapshot --deep "
            "-o host.json`",
        )


def read_facts(
    path: Optional[Path],
    *,
    deep: bool = False,
    deep_timeout_s: float = DEEP_TIMEOUT_S,
    architectures: "Sequence[Architecture]" = (),
) -> "HostFacts":
    """This host's facts, or those of a snapshot or a pasted text report (`-`: standard input);
    `architectures` (the matrix's) name the compute capability of GPUs a report knows by name."""
    if path is not None:
        from gpudoctor.pasted.load import load_facts

        return load_facts(path, architectures)
    from gpudoctor.probes import collect_facts

    return collect_facts(deep=deep, deep_timeout_s=deep_timeout_s)


def append_step_summary(path: str, markdown: str) -> None:
    """The step summary is a bonus beside the annotations: a path that cannot be written is a
    warning, and the report still goes out."""
    from gpudoctor.cli.common import err

    try:
        # O_NONBLOCK: a FIFO nobody reads is ENXIO (a warning), never a blocked open().
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
        with open(os.open(path, flags, 0o644), "a", encoding="utf-8") as stream:
            stream.write(markdown)
    except OSError as exc:
        err(f"warning: cannot write the step summary to {path}: {exc.strerror or exc}")


def render(
    run: "CheckRun",
    facts: "HostFacts",
    intent: "Intent",
    fmt: str,
    *,
    verbose: bool,
    to_file: Optional[Path],
) -> str:
    if fmt == "json":
        from gpudoctor.report.json_report import render_json

        return render_json(run, facts, intent)
    if fmt == "prometheus":
        from gpudoctor.report.prometheus import render_prometheus

        return render_prometheus(facts, run.findings, exit_code=run.exit_code)
    if fmt == "markdown":
        from gpudoctor.report.markdown import render_markdown

        return render_markdown(run, facts)
    if fmt == "junit":
        from gpudoctor.report.junit import render_junit

        return render_junit(run)
    if fmt == "github":
        from gpudoctor.report.github import render_annotations, render_step_summary

        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            append_step_summary(summary, render_step_summary(run))
        return render_annotations(run)
    from gpudoctor.report.text import render_text, use_colour

    colour = to_file is None and use_colour(sys.stdout)
    return render_text(run, verbose=verbose, colour=colour)
