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


def load_fleet(paths: Sequence[Path]) -> list[tuple[str, HostFacts | FactsError]]:
    """Load every snapshot; a file that cannot be read is kept as its error (the rest of the
    fleet is still judged). Each host is named by its hostname (when the snapshot kept it) or
    its file name, by its path where that name repeats, and numbered if even that repeats."""
    from gpudoctor.facts_json import load

    loaded: list[tuple[Path, HostFacts | FactsError]] = []
    for path in snapshot_paths(paths):
        try:
            loaded.append((path, load(path)))
        except FactsError as exc:
            loaded.append((path, exc))
    names = [
        (facts.platform.hostname if not isinstance(facts, FactsError) else None) or path.stem
        for path, facts in loaded
    ]
    spelled = [
        str(path) if names.count(name) > 1 else name
        for name, (path, _) in zip(names, loaded, strict=True)
    ]
    return [(name, facts) for name, (_, facts) in zip(unique_names(spelled), loaded, strict=True)]


def unique_names(names: Sequence[str]) -> list[str]:
    """`names` with repeats numbered ("a", "a #2"): two snapshots may claim the same host."""
    seen: dict[str, int] = {}
    taken = set(names)
    out = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        candidate = name
        while count > 1 and candidate in taken:
            candidate = f"{name} #{count}"
            count += 1
        taken.add(candidate)
        out.append(candidate)
    return out


def _unreadable(error: FactsError) -> Finding:
    from gpudoctor.checks.base import finding

    return finding(
        "unreadable-snapshot",
        Severity.ERROR,
        f"cannot read the snapshot: {error.message}",
        fix=error.hint or "record the host again with `gpudoctor snapshot -o FILE`",
    )


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
    from gpudoctor.facts import HostFacts

    hosts: list[tuple[str, HostFacts, Sequence[Finding]]] = []
    exit_code = 0
    for name, facts in load_fleet(paths):
        if isinstance(facts, FactsError):
            hosts.append((name, HostFacts(), [_unreadable(facts)]))
            exit_code = max(exit_code, 1)
            continue
        run = run_checks(facts, matrix, intent, only=only, skip=skip, strict=strict)
        hosts.append((name, facts, run.findings))
        exit_code = max(exit_code, run.exit_code)
    return summarize_fleet(hosts), exit_code
