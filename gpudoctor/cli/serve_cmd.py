"""`gpudoctor serve`: run the checks every --interval in the background and serve the last result
to Prometheus on `/metrics`, with `/readyz` for Kubernetes (docs/kubernetes.md)."""

# No `from __future__ import annotations`: typer before Python 3.10 reads the options from real
# annotations only (tests/cli/test_typer_annotations.py).
import math
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gpudoctor.cli.common import err, load_matrix
from gpudoctor.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from gpudoctor.checks import Intent
    from gpudoctor.exporter.schedule import Outcome
    from gpudoctor.matrix.model import Matrix

# Prometheus' list of default exporter ports is full (9100-9999): 9400 is dcgm-exporter's and
# 9835 nvidia_gpu_exporter's, both on the same GPU nodes; gpudoctor takes 9489 (docs/kubernetes.md).
DEFAULT_PORT = 9489
DEFAULT_LISTEN = f"127.0.0.1:{DEFAULT_PORT}"
DEFAULT_INTERVAL_S = 60.0
MIN_INTERVAL_S, MAX_INTERVAL_S = 1.0, 86400.0

HELP = f"""Serve this host's checks to Prometheus: run them every --interval in the
background and answer scrapes with the last result.

\b
  gpudoctor serve                                   on {DEFAULT_LISTEN}
  gpudoctor serve --listen 0.0.0.0:{DEFAULT_PORT} --interval 300 \\
      --require 'driver>=550' --require 'gpus>=8'

\b
  /metrics  the last run in the format of `check --format prometheus`, plus
            the exporter's own state (gpudoctor_last_run_age_seconds,
            gpudoctor_run_in_progress, gpudoctor_ready, ...)
  /readyz   200 when the last run passed: every --require holds (without
            --require: no error finding); 503 before the first run, when it
            fails, and when the last result is older than three intervals
  /healthz  200 while the exporter answers

A scrape never runs a check nor waits for one; a run still going at the next
interval is not started again (gpudoctor_runs_skipped counts it). GET only.
Stops on SIGTERM or SIGINT (exit 0); exit 2 for a bad option or an address
that cannot be bound.
"""


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP, no_args_is_help=False)(serve)


def serve(
    ctx: typer.Context,
    listen: Annotated[
        str,
        typer.Option(
            "--listen", metavar="ADDR:PORT", help=f"Address to serve on (default {DEFAULT_LISTEN})."
        ),
    ] = DEFAULT_LISTEN,
    interval: Annotated[
        float,
        typer.Option(
            "--interval",
            metavar="S",
            help=f"Seconds between runs ({MIN_INTERVAL_S:g} to {MAX_INTERVAL_S:g}).",
        ),
    ] = DEFAULT_INTERVAL_S,
    require: Annotated[
        Optional[list[str]],
        typer.Option("--require", metavar="EXPR", help="A requirement for readiness (repeatable)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Count warnings and unknowns as failures.")
    ] = False,
) -> int:
    import signal
    import threading

    from gpudoctor.cli.check_cmd import build_intent
    from gpudoctor.exporter.http import serve as start_serving
    from gpudoctor.exporter.schedule import Schedule

    address = parse_listen(listen)
    interval_s = check_interval(interval)
    intent = build_intent(None, None, require or [])
    matrix = load_matrix(ctx)
    schedule = Schedule(make_judge(matrix, intent, strict=strict), interval_s)
    try:
        running = start_serving(schedule, address)
    except OSError as exc:
        raise UsageError(
            f"--listen {listen}: cannot serve there: {exc.strerror or exc}",
            hint=f"choose a free port and an address of this host, e.g. --listen {DEFAULT_LISTEN}",
        ) from None
    host, port = running.address
    shown = f"[{host}]" if ":" in host else host
    err(
        f"gpudoctor serve: http://{shown}:{port}/metrics and /readyz, checks every {interval_s:g} s"
    )
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    running.stop()
    err("gpudoctor serve: stopped")
    return 0


def make_judge(matrix: "Matrix", intent: "Intent", *, strict: bool) -> "Callable[[], Outcome]":
    """One run: this host's facts, the checks, the metrics text and the readiness verdict."""
    from gpudoctor.checks import run_checks
    from gpudoctor.exporter.live import readiness
    from gpudoctor.exporter.schedule import Outcome
    from gpudoctor.probes import collect_facts
    from gpudoctor.report.prometheus import render_prometheus

    def judge() -> Outcome:
        facts = collect_facts()
        run = run_checks(facts, matrix, intent, strict=strict)
        text = render_prometheus(facts, run.findings, exit_code=run.exit_code)
        ready, reason = readiness(
            run.findings, requirements_given=bool(intent.requirements), strict=strict
        )
        return Outcome(text, ready, reason, run.exit_code)

    return judge


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `[IPV6]:PORT` or `:PORT` (every IPv4 address) to a bindable address."""
    host, sep, port_text = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        host = ""  # an IPv6 address without brackets: refused below
    if (
        not sep
        or not port_text.isdecimal()
        or not 0 <= int(port_text) <= 65535
        or (not host and text.count(":") > 1)
    ):
        raise UsageError(
            f"--listen {text!r} is not ADDR:PORT",
            hint=f"e.g. --listen {DEFAULT_LISTEN}, --listen 0.0.0.0:{DEFAULT_PORT} or "
            f"--listen [::1]:{DEFAULT_PORT}",
        )
    return host or "0.0.0.0", int(port_text)


def check_interval(seconds: float) -> float:
    if not math.isfinite(seconds) or not MIN_INTERVAL_S <= seconds <= MAX_INTERVAL_S:
        raise UsageError(
            f"--interval {seconds:g} is not a number of seconds from {MIN_INTERVAL_S:g} to "
            f"{MAX_INTERVAL_S:g}",
            hint="e.g. --interval 60",
        )
    return seconds
