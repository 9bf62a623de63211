"""What the pasted-line tests ask of a paste's findings: every finding, the known error lines
of one signature (or the codes of all), and the warnings and errors (a benign paste must have
none)."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def findings_of(read: Read, matrix: Matrix, text: str) -> list[Finding]:
    """Every finding of the checks on what `read` makes of `text`."""
    return list(run_checks(read(text), matrix).findings)


def error_lines(findings: list[Finding], code: str) -> list[Finding]:
    """The `report-error` findings of the signature `code`."""
    return [f for f in findings if f.code == "report-error" and ("error", code) in f.evidence]


def error_codes(read: Read, text: str) -> list[str]:
    """The codes of the known lines the report names, in order; none where the paste is "no
    report recognised" (a near miss may be read as nothing at all)."""
    from gpudoctor.errors import FactsError

    try:
        report = read(text).report
    except FactsError:
        return []
    assert report is not None
    return [e.code for e in report.errors]


def named_lines(read: Read, matrix: Matrix, text: str, code: str) -> list[Finding]:
    """The lines of `text` the signature `code` names, as findings."""
    return error_lines(findings_of(read, matrix, text), code)


def warn_or_error(findings: list[Finding]) -> list[tuple[str, str]]:
    """(code, title) of every warning and error: what a false alarm would be."""
    return [(f.code, f.title) for f in findings if f.severity in (Severity.WARN, Severity.ERROR)]


def no_fact_read(read: Read, text: str) -> bool:
    """`text` gives no fact: it is "no report recognised", or read only as the words it names
    (a framework, a Jetson, MIG: pasted/words.py), which no check judges."""
    from gpudoctor.errors import FactsError
    from gpudoctor.pasted.words import NAME

    try:
        facts = read(text)
    except FactsError:
        return True
    report = facts.report
    return report is not None and report.sections == (NAME,)
