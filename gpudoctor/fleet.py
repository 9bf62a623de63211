"""Many hosts at once: `check --from` over several snapshots (or a folder of them).

`summarize_fleet` turns each host's findings into one view grouped by problem: for every finding
code that is a problem somewhere (error or warn), the hosts that have it (with the subjects, e.g.
"GPU 3"), so one look shows which nodes need what; hosts with no problem are listed as healthy.
Pure: the loader (`load_fleet`) is the only part that reads files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpudoctor.checks.model import Finding, Severity
from gpudoctor.errors import FactsError

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

PROBLEM_SEVERITIES = frozenset({Severity.ERROR, Severity.WARN})
# Worst first, the order of every per-severity listing.
SEVERITY_ORDER = tuple(sorted(Severity, key=lambda s: s.rank, reverse=True))

Counts = tuple[tuple[Severity, int], ...]


@dataclass(frozen=True)
class FleetHost:
    name: str
    worst: Severity  # OK when the host has no finding at all
    counts: Counts  # findings per severity, every severity, worst first
    problems: tuple[str, ...]  # codes of its error and warn findings, sorted

    @property
    def healthy(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Occurrence:
    host: str
    severity: Severity
    subject: str


@dataclass(frozen=True)
class FleetProblem:
    """One finding code that is a problem on at least one host."""

    code: str
    severity: Severity  # the worst across hosts
    area: str
    title: str  # of the worst occurrence
    fix: str  # of the worst occurrence
    occurrences: tuple[Occurrence, ...]  # sorted by host, then subject

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(o.host for o in self.occurrences))

    @property
    def docs(self) -> str:
        return f"docs/findings.md#{self.code}"


@dataclass(frozen=True)
class FleetSummary:
    hosts: tuple[FleetHost, ...]  # in the order given
    problems: tuple[FleetProblem, ...]  # worst first, then most hosts, then code
    counts: Counts  # findings per severity over the fleet, worst first

    @property
    def healthy(self) -> tuple[str, ...]:
        return tuple(h.name for h in self.hosts if h.healthy)

    @property
    def worst(self) -> Severity:
        return max((h.worst for h in self.hosts), key=lambda s: s.rank, default=Severity.OK)

    def hosts_by_worst(self) -> Counts:
        """How many hosts have each severity as their worst."""
        return tuple((s, sum(1 for h in self.hosts if h.worst is s)) for s in SEVERITY_ORDER)


def summarize_fleet(hosts: Sequence[tuple[str, HostFacts, Sequence[Finding]]]) -> FleetSummary:
    """Group the findings of several hosts by problem; host names must be unique."""
    names = [name for name, _, _ in hosts]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"host names must be unique, repeated: {', '.join(duplicates)}")
    groups: dict[str, list[tuple[str, Finding]]] = {}
    for name, _facts, findings in hosts:
        for f in findings:
            if f.severity in PROBLEM_SEVERITIES:
                groups.setdefault(f.code, []).append((name, f))
    problems = sorted(
        (_problem(code, hits) for code, hits in groups.items()),
        key=lambda p: (-p.severity.rank, -len(p.hosts), p.code),
    )
    return FleetSummary(
        hosts=tuple(_host(name, findings) for name, _, findings in hosts),
        problems=tuple(problems),
        counts=_counts(f for _, _, findings in hosts for f in findings),
    )


def _host(name: str, findings: Sequence[Finding]) -> FleetHost:
    worst = max((f.severity for f in findings), key=lambda s: s.rank, default=Severity.OK)
    problems = sorted({f.code for f in findings if f.severity in PROBLEM_SEVERITIES})
    return FleetHost(name=name, worst=worst, counts=_counts(findings), problems=tuple(problems))


def _problem(code: str, hits: list[tuple[str, Finding]]) -> FleetProblem:
    _, worst = max(hits, key=lambda hit: hit[1].severity.rank)
    occurrences = sorted(
        {Occurrence(host, f.severity, f.subject) for host, f in hits},
        key=lambda o: (o.host, o.subject),
    )
    return FleetProblem(
        code=code,
        severity=worst.severity,
        area=worst.area,
        title=worst.title,
        fix=worst.fix,
        occurrences=tuple(occurrences),
    )


def _counts(findings: Iterable[Finding]) -> Counts:
    severities = [f.severity for f in findings]
    return tuple((s, severities.count(s)) for s in SEVERITY_ORDER)


# --- loading ------------------------------------------------------------------------------------


def snapshot_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, folders expanded to their `*.json` files (sorted); each file once."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.glob("*.json") if p.is_file())
            if not files:
                raise FactsError(
                    f"{path}: no snapshot files (*.json) in this folder",
                    hint="write them with `gpudoctor snapshot -o DIR/HOST.json` on each host",
                )
            found.extend(files)
        else:
            found.append(path)
    unique = {p.resolve(): p for p in reversed(found)}  # keep the first spelling of each file
    return [p for p in found if unique[p.resolve()] is p]


def load_fleet(paths: Sequence[Path]) -> list[tuple[str, HostFacts]]:
    """Load every snapshot; each host is named by its hostname (when the snapshot kept it) or
    its file name, and by its path where that name repeats."""
    from gpudoctor.facts_json import load

    loaded = [(path, load(path)) for path in snapshot_paths(paths)]
    names = [facts.platform.hostname or path.stem for path, facts in loaded]
    return [
        (str(path) if names.count(name) > 1 else name, facts)
        for name, (path, facts) in zip(names, loaded, strict=True)
    ]


def is_fleet(paths: Sequence[Path]) -> bool:
    """Does `--from` name several hosts (more than one file, or a folder)?"""
    return len(paths) > 1 or any(p.is_dir() for p in paths)


def judge_fleet(
    paths: Sequence[Path],
    matrix: Matrix,
    intent: Intent | None = None,
    *,
    only: frozenset[str] = frozenset(),
    skip: frozenset[str] = frozenset(),
    strict: bool = False,
) -> tuple[FleetSummary, int]:
    """Load and check every snapshot; the exit code is the worst host's (1 if any host fails)."""
    from gpudoctor.checks import run_checks

    hosts: list[tuple[str, HostFacts, Sequence[Finding]]] = []
    exit_code = 0
    for name, facts in load_fleet(paths):
        run = run_checks(facts, matrix, intent, only=only, skip=skip, strict=strict)
        hosts.append((name, facts, run.findings))
        exit_code = max(exit_code, run.exit_code)
    return summarize_fleet(hosts), exit_code
