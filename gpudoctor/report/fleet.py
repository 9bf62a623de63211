"""Fleet reports (`check --from` over several snapshots): text for people, JSON for machines.

The JSON envelope is a contract (`kind`, `version`); a test pins its shape.
"""

from __future__ import annotations

import json
from typing import Any

from gpudoctor.findings import MARKS, Severity
from gpudoctor.fleet_summary import Counts, FleetProblem, FleetSummary
from gpudoctor.safe_text import printable
from gpudoctor.wording import plural

FLEET_JSON_VERSION = 1


def render_fleet_text(summary: FleetSummary, *, max_hosts: int = 20) -> str:
    """One block per problem, worst first, naming the hosts (and subjects) that have it."""
    hosts = len(summary.hosts)
    attention = hosts - len(summary.healthy)
    lines = [
        f"gpudoctor fleet: {plural(hosts, 'host')}, {len(summary.healthy)} healthy, "
        f"{attention} need attention",
        "",
    ]
    for problem in summary.problems:
        lines.extend(_problem_lines(problem, max_hosts))
    if summary.healthy:
        lines.append(
            f"{MARKS[Severity.OK]} healthy ({len(summary.healthy)}): "
            f"{_names(list(summary.healthy), max_hosts)}"
        )
    lines.append("")
    lines.append(f"hosts by worst finding: {_counts_text(summary.hosts_by_worst())}")
    lines.append(f"findings: {_counts_text(summary.counts)}")
    # Host names come from the snapshots (their hostname, their file name): shown printable.
    return "\n".join(printable(line) for line in lines) + "\n"


def _problem_lines(problem: FleetProblem, max_hosts: int) -> list[str]:
    mark = MARKS[problem.severity]
    hosts = problem.hosts
    where = []
    for host in hosts:
        subjects = [o.subject for o in problem.occurrences if o.host == host and o.subject]
        where.append(f"{host} ({', '.join(subjects)})" if subjects else host)
    lines = [
        f"{mark} {problem.code} ({problem.severity}) on {plural(len(hosts), 'host')}: "
        f"{_names(where, max_hosts)}",
        f"    {problem.title}",
    ]
    if problem.fix:
        lines.append(f"    fix: {problem.fix}")
    return lines


def _names(names: list[str], limit: int) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", and {len(names) - limit} more"


def _counts_text(counts: Counts) -> str:
    return ", ".join(f"{n} {severity}" for severity, n in counts)


def fleet_to_dict(summary: FleetSummary) -> dict[str, Any]:
    return {
        "kind": "gpudoctor-fleet",
        "version": FLEET_JSON_VERSION,
        "worst": str(summary.worst),
        "hosts_total": len(summary.hosts),
        "healthy": list(summary.healthy),
        "hosts_by_worst": _counts_dict(summary.hosts_by_worst()),
        "findings": _counts_dict(summary.counts),
        "problems": [
            {
                "code": p.code,
                "severity": str(p.severity),
                "area": p.area,
                "title": p.title,
                "fix": p.fix,
                "docs": p.docs,
                "hosts": list(p.hosts),
                "occurrences": [
                    {"host": o.host, "severity": str(o.severity), "subject": o.subject}
                    for o in p.occurrences
                ],
            }
            for p in summary.problems
        ],
        "hosts": [
            {
                "name": h.name,
                "worst": str(h.worst),
                "healthy": h.healthy,
                "problems": list(h.problems),
                "findings": _counts_dict(h.counts),
            }
            for h in summary.hosts
        ],
    }


def render_fleet_json(summary: FleetSummary) -> str:
    return json.dumps(fleet_to_dict(summary), indent=2, ensure_ascii=False) + "\n"


def _counts_dict(counts: Counts) -> dict[str, int]:
    return {str(severity): n for severity, n in counts}
