"""`--format markdown`: a reply for an issue thread about a pasted report. A summary line, the
problems with their fixes, what the report showed and what it could not tell.

Pasted text (GPU names, error lines) reaches the reply: it is escaped so that it cannot open
HTML, links, images or @mentions in the comment a bot posts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.findings import MARKS, Finding, Severity

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun
    from gpudoctor.facts import HostFacts

_SHOWN = (Severity.ERROR, Severity.WARN)
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape(text: str) -> str:
    """Markdown-inert text: special characters backslash-escaped, @mentions and #refs broken
    with a zero-width space, line breaks folded."""
    text = _SPECIAL.sub(r"\\\1", " ".join(text.split()))
    return text.replace("@", "@\u200b")


def _fix(text: str) -> str:
    # Fixes are ours (catalogue and checks), with `commands` already marked: keep them, escape
    # only what could open HTML or a mention.
    return " ".join(text.split()).replace("<", "&lt;").replace(">", "&gt;").replace("@", "@\u200b")


def _summary(run: CheckRun) -> str:
    c = run.counts()
    if c["error"]:
        worst = next(f for f in run.findings if f.severity is Severity.ERROR)
        lead = f"{MARKS[Severity.ERROR]} **{escape(worst.title)}**"
    elif c["warn"]:
        worst = next(f for f in run.findings if f.severity is Severity.WARN)
        lead = f"! **{escape(worst.title)}**"
    else:
        lead = f"{MARKS[Severity.OK]} **No problem found in what the report shows.**"
    counts = ", ".join(f"{c[k]} {k}" for k in ("error", "warn", "unknown") if c[k])
    return lead + (f" ({counts})" if counts else "")


def _finding(f: Finding) -> list[str]:
    who = f"{escape(f.subject)}: " if f.subject else ""
    lines = [f"- {MARKS[f.severity]} {who}{escape(f.title)} (`{f.code}`)"]
    if f.detail:
        lines.append(f"  {escape(f.detail)}")
    if f.fix:
        lines.append(f"  **Fix:** {_fix(f.fix)}")
    return lines


def render_markdown(run: CheckRun, facts: HostFacts) -> str:
    out = ["### gpudoctor", "", _summary(run), ""]
    problems = [f for f in run.findings if f.severity in _SHOWN]
    if problems:
        out += ["#### Findings", ""]
        for f in problems:
            out += _finding(f)
        out.append("")
    evidence = [f for f in run.findings if f.code == "report-error" and f.severity is Severity.INFO]
    if evidence:
        out += ["#### Error lines in the report", ""]
        for f in evidence:
            out += _finding(f)
        out.append("")
    report = facts.report
    if report is not None:
        out += ["#### What the report showed", ""]
        out.append("- recognised: " + (", ".join(escape(s) for s in report.sections) or "nothing"))
        out += [f"- {escape(note)}" for note in report.notes]
        out.append("")
        unknown = [f for f in run.findings if f.severity is Severity.UNKNOWN]
        if report.unknown or unknown:
            out += ["#### What it could not tell", ""]
            out += [f"- {escape(u)}" for u in report.unknown]
            out += [f"- {escape(f.title)} (`{f.code}`)" for f in unknown]
            out.append("")
    out.append(
        "<sub>Judged by gpudoctor from the pasted text only (each `code` is explained in "
        "gpudoctor's docs/findings.md); run `gpudoctor check` on the host for a full "
        "verdict.</sub>"
    )
    return "\n".join(out) + "\n"
