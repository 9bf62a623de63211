"""GitHub Actions: workflow-command annotations on stdout and a markdown step summary.

error -> ::error, warn -> ::warning, unknown and info -> ::notice; ok and n/a are silent. Values
are escaped as the runner expects (actions/toolkit command.ts: % \\r \\n in messages, and also
: and , in properties)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.areas import title as area_title
from gpudoctor.findings import MARKS, Severity
from gpudoctor.report.markdown import escape, inert
from gpudoctor.report.text import summary_line

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun

_COMMAND = {
    Severity.ERROR: "error",
    Severity.WARN: "warning",
    Severity.UNKNOWN: "notice",
    Severity.INFO: "notice",
}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_annotations(run: CheckRun) -> str:
    lines = []
    for f in run.findings:
        command = _COMMAND.get(f.severity)
        if command is None:
            continue
        title = f"{f.code}" + (f" ({f.subject})" if f.subject else "")
        message = (
            f.title + (f"\n{f.detail}" if f.detail else "") + (f"\nfix: {f.fix}" if f.fix else "")
        )
        lines.append(f"::{command} title={escape_property(title)}::{escape_data(message)}")
    lines.append(summary_line(run))
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Report text in the step summary (a web page): markdown-inert, one line, no bare pipe."""
    return escape(text)


def _fix_cell(text: str) -> str:
    return inert(text, table=True)


def render_step_summary(run: CheckRun) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: areas with marks, then a table of the problems."""
    out = ["## gpudoctor check", ""]
    for area in run.areas():
        headline = run.headlines.get(area, "")
        out.append(
            f"- {MARKS[run.area_status(area)]} **{area_title(area)}**"
            + (f": {_cell(headline)}" if headline else "")
        )
    problems = [
        f for f in run.findings if f.severity in (Severity.ERROR, Severity.WARN, Severity.UNKNOWN)
    ]
    if problems:
        out += ["", "| | code | subject | finding | fix |", "|---|---|---|---|---|"]
        out += [
            f"| {MARKS[f.severity]} | `{f.code}` | {_cell(f.subject)} | {_cell(f.title)} | "
            f"{_fix_cell(f.fix)} |"
            for f in problems
        ]
    out += ["", summary_line(run), ""]
    return "\n".join(out)
