"""Finding and Severity: what a check concludes. Pure data, shared by checks, reporters, verify."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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
