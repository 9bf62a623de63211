"""`--format markdown`: a reply for an issue thread about a pasted report. A summary line, the
problems with their fixes, what the report showed and what it could not tell.

Pasted text (GPU names, error lines) reaches the reply: it is escaped so that it cannot open
HTML, links, autolinks, images or @mentions in the comment a bot posts (`escape`, and `inert`
for fixes, whose `code` spans are kept).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.findings import MARKS, Finding, Severity

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun
    from gpudoctor.facts import HostFacts

_SHOWN = (Severity.ERROR, Severity.WARN)
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")
# What GitHub turns into a link without any markup: URLs with a scheme and www. names (the
# extended autolinks of GFM); emails are broken by the '@' rule below.
_AUTOLINK = re.compile(r"(?i)(:)(//)|(www)(\.)")
_CODE_SPAN = re.compile(r"(`[^`\n]*`)")


def escape(text: str) -> str:
    """Markdown-inert text: special characters backslash-escaped (no link, image, HTML or
    entity can open), bare URLs and www. names broken with a zero-width space (no autolink),
    @mentions and #refs broken likewise, line breaks folded."""
    return _inert_part(" ".join(text.split()))


def _inert_part(text: str) -> str:
    text = _SPECIAL.sub(r"\\\1", text)
    text = _AUTOLINK.sub(lambda m: "\u200b".join(g for g in m.groups() if g), text)
    return text.replace("@", "@\u200b")


def inert(text: str, *, table: bool = False) -> str:
    """Text that may mark commands as `code` (fixes): the code spans kept as they are (nothing
    in a code span is a link or HTML), everything else escaped as `escape` does. In a table
    cell a pipe in a code span is escaped too (GFM splits cells before code spans)."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part.replace("|", "\\|") if table else part)
        else:
            out.append(_inert_part(part))
    return "".join(out)


def _fix(text: str) -> str:
    # Fixes are ours (catalogue and checks), with `commands` marked, but they quote values
    # from the report (a package name, a path): only their code spans are kept as markup.
    return inert(text)


def _summary(run: CheckRun, pasted: bool) -> str:
    c = run.counts()
    if c["error"]:
        worst = next(f for f in run.findings if f.severity is Severity.ERROR)
        lead = f"{MARKS[Severity.ERROR]} **{escape(worst.title)}**"
    elif c["warn"]:
        worst = next(f for f in run.findings if f.severity is Severity.WARN)
        lead = f"! **{escape(worst.title)}**"
    else:
        what = "in what the report shows" if pasted else "on this host"
        lead = f"{MARKS[Severity.OK]} **No problem found {what}.**"
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
    out = ["### gpudoctor", "", _summary(run, facts.report is not None), ""]
    problems = [f for f in run.findings if f.severity in _SHOWN]
    if problems:
        out += ["#### Findings", ""]
        for f in problems:
            out += _finding(f)
        out.append("")
    error_lines = [
        f for f in run.findings if f.code == "report-error" and f.severity is Severity.INFO
    ]
    if error_lines:
        out += ["#### Error lines in the report", ""]
        for f in error_lines:
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
    # A snapshot or a live check is not "pasted text": say what was judged.
    source = (
        "the pasted text only"
        if report is not None
        else "the facts it collected on the host, live or in a snapshot"
    )
    full = "; run `gpudoctor check` on the host for a full verdict" if report is not None else ""
    out.append(
        f"<sub>Judged by gpudoctor from {source} (each `code` is explained in "
        f"gpudoctor's docs/findings.md){full}.</sub>"
    )
    return "\n".join(out) + "\n"
