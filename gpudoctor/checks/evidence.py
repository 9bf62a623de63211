"""Pasted reports (`check --from report.txt`): what was read, and the error lines as evidence.

`check_report_read` says which sections were recognised and what the report could not tell;
`check_report_errors` makes one finding per known error line (checks/error_lines.py). After all
checks ran, `link_evidence` joins each error line to the fact-based findings that predict it:
the matching finding says "the report's error line matches", and the error-line finding becomes
info that names it, so the verdict is counted once, on the finding with the facts and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.error_lines import BY_CODE
from gpudoctor.findings import ERROR, INFO, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

_PREDICTS = (ERROR, WARN)


def check_report_read(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    if report is None:
        return []  # a live host or a snapshot: the area does not appear
    detail = "; ".join(report.notes)
    if report.unknown:
        detail += ("; " if detail else "") + "not in the report: " + ", ".join(report.unknown)
    return [
        finding(
            "report-read",
            INFO,
            f"read {', '.join(report.sections)} from {report.source}",
            detail=detail,
            fix=_ask_for_more(report.sections) if report.unknown else "",
            evidence=[("sections", report.sections), ("source", report.source)],
        )
    ]


# The outputs worth asking a reporter for, each with the section names that already hold it.
_ASK = (
    ("`nvidia-smi`", ("nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x")),
    ("`python -m torch.utils.collect_env`", ("collect_env",)),
)


def _ask_for_more(sections: Sequence[str]) -> str:
    """Run gpudoctor there; or ask only for the outputs the report does not already hold."""
    missing = [what for what, names in _ASK if not set(names) & set(sections)]
    ask = f" (or ask for {' and '.join(missing)})" if missing else ""
    return f"for the rest, run `gpudoctor check` on that host{ask}"


def check_report_errors(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    if report is None:
        return []
    if not report.errors:
        return [finding("report-error", OK, "no known error line in the report")]
    out = []
    for error in report.errors:
        known = BY_CODE[error.code]
        out.append(
            finding(
                "report-error",
                ERROR,
                f"the report shows: {error.text}",
                detail=known.cause,
                fix=known.fix,
                evidence=[("line", error.line), ("error", known.code)],
                subject=known.code,
            )
        )
    return out


def link_evidence(findings: Sequence[Finding]) -> list[Finding]:
    """Join error-line findings to the findings that predict them (see the module docstring)."""
    errors = [f for f in findings if f.code == "report-error" and f.severity is ERROR]
    if not errors:
        return list(findings)
    matched: dict[int, list[Finding]] = {}  # id of a predicting finding -> error lines
    explained: dict[int, list[Finding]] = {}  # id of an error line -> predicting findings
    for error in errors:
        predicted_by = BY_CODE[error.subject].predicted_by
        for f in findings:
            if f.code in predicted_by and f.severity in _PREDICTS:
                matched.setdefault(id(f), []).append(error)
                explained.setdefault(id(error), []).append(f)
    out = []
    for f in findings:
        if id(f) in matched:
            lines = "; ".join(
                f"'{e.title.removeprefix('the report shows: ')}'" for e in matched[id(f)]
            )
            out.append(
                replace(f, detail=_join(f.detail, f"the report's error line matches: {lines}"))
            )
        elif id(f) in explained:
            codes = sorted({p.code for p in explained[id(f)]})
            out.append(
                replace(
                    f,
                    severity=INFO,
                    detail=_join(f.detail, f"explained by {', '.join(codes)} (its fix applies)"),
                )
            )
        else:
            out.append(f)
    return out


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


CHECKS = (check_report_read, check_report_errors)
