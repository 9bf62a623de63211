"""The exporter's own metrics and its readiness, from the schedule's state at scrape time.

Readiness is 200 only when a run has finished, its outcome is no older than `STALE_INTERVALS`
intervals, and that run passed (`readiness`). The metrics say the same to Prometheus, so an alert
can tell "the node fails" from "the exporter stopped judging it".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpudoctor.checks import fails
from gpudoctor.report.prometheus import Metric, Sample, exposition

if TYPE_CHECKING:
    from gpudoctor.exporter.schedule import State
    from gpudoctor.findings import Finding

# An outcome older than this many intervals is stale: readiness fails and alerts fire.
STALE_INTERVALS = 3

LIVE_METRICS: tuple[Metric, ...] = (
    Metric("gpudoctor_ready", "1 when the readiness endpoint answers 200 (see /readyz)."),
    Metric(
        "gpudoctor_run_interval_seconds",
        "Seconds between two scheduled runs of the checks (serve --interval).",
    ),
    Metric(
        "gpudoctor_last_run_age_seconds",
        "Seconds since the last run finished; absent before the first run.",
    ),
    Metric(
        "gpudoctor_last_run_duration_seconds",
        "How long the last finished run took (probes, checks and rendering).",
    ),
    Metric(
        "gpudoctor_run_in_progress",
        "1 while a run is in progress; a run still going at the next interval is not restarted.",
    ),
    Metric("gpudoctor_run_in_progress_seconds", "Seconds the run in progress has taken so far."),
    Metric("gpudoctor_runs_completed", "Runs finished since serve started."),
    Metric("gpudoctor_runs_skipped", "Scheduled runs not started because one was still going."),
    Metric("gpudoctor_runs_failed", "Runs that raised instead of finishing (see serve's log)."),
)
LIVE_METRIC_NAMES = frozenset(m.name for m in LIVE_METRICS)


def readiness(
    findings: Iterable[Finding], *, requirements_given: bool, strict: bool = False
) -> tuple[bool, str]:
    """Does this run make the node ready? With --require: every requirement holds (an unknown
    one does not). Without: no finding fails the run (no error; with --strict no warning or
    unknown either), the rule of `check`'s exit code."""
    found = list(findings)
    if requirements_given:
        unmet = [f for f in found if f.area == "requirements" and fails(f, strict=False)]
        if unmet:
            return False, "requirement not met: " + "; ".join(
                f"{f.subject} ({f.severity})" for f in unmet
            )
        return True, "every --require holds"
    failing = [f for f in found if fails(f, strict=strict)]
    if failing:
        codes = ", ".join(sorted({f.code for f in failing}))
        return False, f"{len(failing)} failing finding(s): {codes}"
    return True, "no failing finding"


def ready_now(state: State, now: float) -> tuple[bool, str]:
    """The readiness answer for this moment, with its reason (the body of /readyz)."""
    if state.outcome is None:
        if state.running_since is not None:
            return False, "the first run is still in progress"
        return False, "no run has finished yet" + (
            f" (last error: {state.last_error})" if state.last_error else ""
        )
    age = state.age_s(now) or 0.0
    if age > STALE_INTERVALS * state.interval_s:
        return False, (
            f"the last result is {age:.0f} s old, more than {STALE_INTERVALS} intervals of "
            f"{state.interval_s:g} s (a run hangs or fails: see gpudoctor_run_in_progress)"
        )
    return state.outcome.ready, state.outcome.reason


def live_metrics(state: State, now: float) -> str:
    """The exporter's own families, written through a registry of their own."""
    ready, _ = ready_now(state, now)
    running = state.running_since is not None
    values: dict[str, list[Sample]] = {
        "gpudoctor_ready": [((), int(ready))],
        "gpudoctor_run_interval_seconds": [((), state.interval_s)],
        "gpudoctor_last_run_age_seconds": [],
        "gpudoctor_last_run_duration_seconds": [],
        "gpudoctor_run_in_progress": [((), int(running))],
        "gpudoctor_run_in_progress_seconds": [],
        "gpudoctor_runs_completed": [((), state.completed)],
        "gpudoctor_runs_skipped": [((), state.skipped)],
        "gpudoctor_runs_failed": [((), state.failed)],
    }
    age = state.age_s(now)
    if age is not None:
        values["gpudoctor_last_run_age_seconds"].append(((), age))
    if state.duration_s is not None:
        values["gpudoctor_last_run_duration_seconds"].append(((), state.duration_s))
    if state.running_since is not None:
        values["gpudoctor_run_in_progress_seconds"].append(((), now - state.running_since))
    return exposition((m, values[m.name]) for m in LIVE_METRICS)
