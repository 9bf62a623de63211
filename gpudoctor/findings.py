"""Finding and Severity: what a check or an image verification concludes, and how each severity
is marked. Pure data, shared by checks, the builder's verify step and every reporter."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gpudoctor.strenum import StrEnum


class Severity(StrEnum):
    OK = "ok"
    INFO = "info"
    WARN = "warn"
    ERROR = "error"
    NA = "n/a"
    UNKNOWN = "unknown"

    @property
    def rank(self) -> int:
        """Order for "worst first" sorting and exit codes."""
        return _RANK[self]


_RANK = {
    Severity.ERROR: 5,
    Severity.WARN: 4,
    Severity.UNKNOWN: 3,
    Severity.INFO: 2,
    Severity.OK: 1,
    Severity.NA: 0,
}


# The one mark per severity, in every text-like output (text, markdown, GitHub, fleet, build).
MARKS = {
    Severity.ERROR: "✗",
    Severity.WARN: "!",
    Severity.UNKNOWN: "?",
    Severity.INFO: "•",
    Severity.OK: "✓",
    Severity.NA: "-",
}


def area_status(severities: Iterable[Severity]) -> Severity:
    """An area's status: its worst finding's severity when that is a problem (error, warn,
    unknown); ok when only ok/info; n/a when all n/a."""
    found = list(severities)
    if all(s is Severity.NA for s in found):
        return Severity.NA
    worst = max(found, key=lambda s: s.rank)
    return worst if worst in (Severity.ERROR, Severity.WARN, Severity.UNKNOWN) else Severity.OK


# Short names for the checks modules, where severities are on every other line.
OK, INFO, WARN, ERROR, NA, UNKNOWN = (
    Severity.OK,
    Severity.INFO,
    Severity.WARN,
    Severity.ERROR,
    Severity.NA,
    Severity.UNKNOWN,
)


@dataclass(frozen=True)
class Finding:
    """One conclusion of one check.

    `code` is stable and kebab-case (`driver-too-old-for-framework`); `area` groups findings in
    the text report (driver, gpu, platform, runtime, software, requirements, intent); `evidence`
    holds the fact values used, as strings, sorted by key when rendered; `fix` is the exact
    command or step; `docs` is the anchor in docs/findings.md.
    """

    code: str
    severity: Severity
    area: str
    title: str
    detail: str = ""
    fix: str = ""
    evidence: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    subject: str = ""  # what the finding is about when there are several: "GPU 0", "torch"

    @property
    def docs(self) -> str:
        return f"docs/findings.md#{self.code}"


# The order severities are listed in (docs, `--list`): as a check moves from good to bad.
SEVERITY_ORDER = (
    Severity.OK,
    Severity.INFO,
    Severity.WARN,
    Severity.ERROR,
    Severity.NA,
    Severity.UNKNOWN,
)


def severities(text: str) -> frozenset[Severity]:
    """ "ok, warn, n/a" -> {OK, WARN, NA}; ValueError names a misspelt one."""
    return frozenset(Severity(part.strip()) for part in text.split(","))


@dataclass(frozen=True)
class CatalogueEntry:
    """One finding code as documented: its area, title, the severities it may take, what it
    means and the fix. The checks' catalogue (checks/catalogue.py) and the builder's
    (builder/verify_codes.py) are lists of these."""

    code: str
    area: str
    title: str
    severities: frozenset[Severity]
    meaning: str
    fix: str

    @property
    def shown_severities(self) -> str:
        return ", ".join(s.value for s in SEVERITY_ORDER if s in self.severities)


def make_finding(
    entry: CatalogueEntry,
    severity: Severity,
    title: str,
    *,
    detail: str = "",
    fix: str = "",
    evidence: Iterable[tuple[str, object]] = (),
    subject: str = "",
) -> Finding:
    """A Finding of a catalogued code. ValueError when the code's entry does not allow
    `severity`, or for an error or warning without a fix: both are bugs, and the tests run
    every check over every fixture host, so they fail there instead of reaching users."""
    if severity not in entry.severities:
        raise ValueError(
            f"{entry.code}: severity {severity.value} is not one the catalogue lists "
            f"({entry.shown_severities})"
        )
    if severity in (Severity.ERROR, Severity.WARN) and not fix.strip():
        raise ValueError(f"{entry.code}: a {severity.value} finding without a fix ({title})")
    return Finding(
        code=entry.code,
        severity=severity,
        area=entry.area,
        title=title,
        detail=detail,
        fix=fix,
        evidence=tuple(sorted((k, _show(v)) for k, v in evidence)),
        subject=subject,
    )


def _show(value: object) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)
