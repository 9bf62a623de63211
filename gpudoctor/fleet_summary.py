"""Many hosts at once: `check --from` over several snapshots (or a folder of them).

`summarize_fleet` turns each host's findings into one view grouped by problem: for every finding
code that is a problem somewhere (error or warn), the hosts that have it (with the subjects, e.g.
"GPU 3"), so one look shows which nodes need what; hosts with no problem are listed as healthy.
Pure: the loader (`load_fleet`) is the only part that reads files.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from gpudoctor.checks import run_checks
from gpudoctor.checks.base import finding
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.pasted.load import load_host_list
from gpudoctor.safe_text import clean_finding, printable

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
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
    duplicates = sorted(n for n, count in Counter(names).items() if count > 1)
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
    severities = Counter(f.severity for f in findings)
    return tuple((s, severities[s]) for s in SEVERITY_ORDER)


# --- loading ------------------------------------------------------------------------------------


REPORT_SUFFIXES = (".txt", ".log")  # pasted text reports a folder may hold beside snapshots


def snapshot_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, folders expanded to their snapshots (`*.json`) and text reports
    (`*.txt`, `*.log`), sorted; each file once."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            files = sorted(
                p for p in path.iterdir() if p.suffix in (".json", *REPORT_SUFFIXES) and p.is_file()
            )
            if not files:
                raise FactsError(
                    f"{path}: no snapshot files (*.json) or text reports (*.txt, *.log) in this "
                    "folder",
                    hint="write them with `gpudoctor snapshot -o DIR/HOST.json` on each host",
                )
            found.extend(files)
        else:
            found.append(path)
    unique = {p.resolve(): p for p in reversed(found)}  # keep the first spelling of each file
    return [p for p in found if unique[p.resolve()] is p]


def load_hosts(path: Path, matrix: Matrix | None = None) -> list[tuple[str, HostFacts]]:
    """The hosts one file holds: a snapshot is one; a pasted text report may hold several
    (reports that disagree), named "FILE #N". FactsError when it cannot be read."""
    architectures = matrix.architectures if matrix is not None else ()
    return load_host_list(path, architectures)


def load_fleet(
    paths: Sequence[Path], matrix: Matrix | None = None
) -> list[tuple[str, HostFacts | FactsError]]:
    """Load every snapshot and report; a file that cannot be read is kept as its error (the rest
    of the fleet is still judged). Hosts are named as `host_names` says."""
    loaded: list[tuple[Path, str | None, HostFacts | FactsError]] = []
    for path in snapshot_paths(paths):
        try:
            hosts = load_hosts(path, matrix)
        except FactsError as exc:
            loaded.append((path, None, exc))
            continue
        for name, facts in hosts:
            loaded.append(
                (path, facts.platform.hostname or _part_name(path, name, len(hosts)), facts)
            )
    names = host_names([path for path, _, _ in loaded], [hint for _, hint, _ in loaded])
    return [(name, facts) for name, (_, _, facts) in zip(names, loaded)]


def _part_name(path: Path, name: str, count: int) -> str | None:
    """A host of a report that holds several: "report #2" (the file's stem and its number)."""
    if count == 1:
        return None
    return path.stem + name[name.rfind(" #") :]


def host_names(paths: Sequence[Path], hostnames: Sequence[str | None]) -> list[str]:
    """Each host by its hostname (when the snapshot kept it) or its file name, by its path
    where that name repeats, and numbered if even that repeats."""

    # A file name need not be UTF-8 (nor printable): made so here, before any format.
    names = [printable(hostname or path.stem) for path, hostname in zip(paths, hostnames)]
    counts = Counter(names)  # not list.count: quadratic over a 3000-host folder
    spelled = [
        printable(str(path)) if counts[name] > 1 else name for name, path in zip(names, paths)
    ]
    return unique_names(spelled)


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

    return clean_finding(
        finding(
            "unreadable-snapshot",
            Severity.ERROR,
            f"cannot read the snapshot or report: {error.message}",
            fix=error.hint or "record the host again with `gpudoctor snapshot -o FILE`",
        )
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
    """Load and check every snapshot; the exit code is the worst host's (1 if any host fails).

    Large fleets are judged by worker processes (each host is independent), small ones here."""
    files = snapshot_paths(paths)
    job = _Job(matrix, intent, only, skip, strict)
    judged = [(path, host) for path, hosts in zip(files, _judge_all(files, job)) for host in hosts]
    names = host_names([path for path, _ in judged], [hint for _, (hint, _, _) in judged])
    hosts: list[tuple[str, HostFacts, Sequence[Finding]]] = [
        (name, HostFacts(), findings) for name, (_, (_, findings, _)) in zip(names, judged)
    ]
    exit_code = max((code for _, (_, _, code) in judged), default=0)
    return summarize_fleet(hosts), exit_code


def judge_hosts(
    hosts: Sequence[tuple[str, HostFacts]],
    matrix: Matrix,
    intent: Intent | None = None,
    *,
    only: frozenset[str] = frozenset(),
    skip: frozenset[str] = frozenset(),
    strict: bool = False,
) -> tuple[FleetSummary, int]:
    """Hosts already read (the several hosts of one pasted report) judged as a fleet."""
    runs = [
        (name, facts, run_checks(facts, matrix, intent, only=only, skip=skip, strict=strict))
        for name, facts in hosts
    ]
    summary = summarize_fleet([(name, facts, run.findings) for name, facts, run in runs])
    return summary, max((run.exit_code for _, _, run in runs), default=0)


@dataclass(frozen=True)
class _Job:
    matrix: Matrix
    intent: Intent | None
    only: frozenset[str]
    skip: frozenset[str]
    strict: bool


Judged = tuple[Optional[str], tuple[Finding, ...], int]  # hostname, findings, exit code
_WORKER_JOB: list[_Job] = []  # the job of a worker process, set by its initializer
_PARENT: list[int] = []  # the judging process's pid, as its forked workers inherit it
PARALLEL_FROM = 200  # hosts; below this, starting workers costs more than it saves


def _judge_all(files: Sequence[Path], job: _Job) -> list[list[Judged]]:
    workers = min(os.cpu_count() or 1, 8)
    if len(files) < PARALLEL_FROM or workers < 2:
        return [_judge(path, job) for path in files]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _PARENT[:] = [os.getpid()]
    # Ctrl-C and SIGTERM wait while the workers are forked: a worker forked with the parent's
    # handlers would raise in its initializer ("Exception in initializer: Traceback ...") if
    # the parent stopped it before the initializer had set its own; it unblocks them there.
    _mask(signal.SIG_BLOCK)
    try:
        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_worker_start,
            initargs=(job,),
        )
    except (OSError, ImportError):  # no process support here (a sandbox): judge in-process
        _mask(signal.SIG_UNBLOCK)
        return [_judge(path, job) for path in files]
    try:
        try:
            # submit, not map: map cancels its pending futures when interrupted, which races
            # with the executor marking them broken once the workers are stopped.
            futures = [
                pool.submit(_judge_in_worker, files[i : i + 32]) for i in range(0, len(files), 32)
            ]
        finally:
            _mask(signal.SIG_UNBLOCK)  # a signal that came meanwhile is taken here
        judged = [one for future in futures for one in future.result()]
    except BaseException:
        # Ctrl-C, SIGTERM or a failure here: the workers go now, not after the queue drains.
        _stop_workers(pool)
        raise
    pool.shutdown(wait=True)
    return judged


def _worker_start(job: _Job) -> None:
    """In each worker: die with the parent (even a SIGKILLed one), leave Ctrl-C and SIGTERM
    to the parent, which stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _mask(signal.SIG_UNBLOCK)  # forked with them blocked (_judge_all)
    _die_with_parent()
    _WORKER_JOB.append(job)


def _mask(how: int) -> None:
    """Block or unblock SIGINT and SIGTERM in this thread (where the platform can)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(how, {signal.SIGINT, signal.SIGTERM})


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if _PARENT and os.getppid() != _PARENT[0]:  # the parent died before the call
        os._exit(1)


def _stop_workers(pool: Any) -> None:
    processes = dict(getattr(pool, "_processes", None) or {})
    for process in processes.values():
        with contextlib.suppress(OSError, AttributeError):
            process.terminate()
    # Not cancel_futures: the executor's manager thread then marks the pending work broken on
    # its own, where cancelling raced with it (InvalidStateError on a cancelled future).
    pool.shutdown(wait=False)
    for process in processes.values():
        with contextlib.suppress(OSError, AttributeError, ValueError, AssertionError):
            process.join(timeout=5)


def _judge_in_worker(paths: Sequence[Path]) -> list[list[Judged]]:
    return [_judge(path, _WORKER_JOB[0]) for path in paths]


def _judge(path: Path, job: _Job) -> list[Judged]:
    """Every host of one file (a report may hold several), each judged on its own."""
    try:
        hosts = load_hosts(path, job.matrix)
    except FactsError as exc:
        return [(None, (_unreadable(exc),), 1)]
    out: list[Judged] = []
    for name, facts in hosts:
        run = run_checks(
            facts, job.matrix, job.intent, only=job.only, skip=job.skip, strict=job.strict
        )
        hint = facts.platform.hostname or _part_name(path, name, len(hosts))
        out.append((hint, run.findings, run.exit_code))
    return out
