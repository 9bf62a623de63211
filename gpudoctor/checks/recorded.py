"""Recorded values no check can read (driver area): a snapshot field whose value does not have
its field's syntax (`driver_version = "abc"`). Loading sets such a field to None and records a
`snapshot` issue (facts_json.py), so every other check sees an unknown value instead of
crashing on it; this check names each such field."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.model import UNKNOWN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix


def check_unreadable_values(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    return [
        finding(
            "unreadable-value",
            UNKNOWN,
            f"recorded value cannot be read: {issue.reason}",
            detail="the checks that need it treat it as unknown",
            fix="record the host again with `gpudoctor snapshot -o FILE`",
            evidence=[("field", issue.field)],
            subject=issue.field,
        )
        for issue in facts.issues
        if issue.code == "unreadable-value"
    ]


CHECKS = (check_unreadable_values,)
