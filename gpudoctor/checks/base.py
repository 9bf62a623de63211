"""What every check shares: the intent it is judged against, the check signature, fact accessors
and the finding constructor that takes a code's area from the catalogue (so an uncatalogued code
fails loudly in tests instead of reaching users undocumented)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.findings import Finding, Severity, make_finding
from gpudoctor.wording import gpu_label

if TYPE_CHECKING:
    from gpudoctor.compat.image import ImageFacts
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix


Value = Union[tuple[int, ...], float, str]


@dataclass(frozen=True)
class Requirement:
    """One `--require` expression, parsed (checks/requirements.py parses and judges it)."""

    text: str  # as the user wrote it
    key: str
    op: str  # normalised: "=" becomes "=="
    value: Value


@dataclass(frozen=True)
class Intent:
    """What the user plans to run here (`--framework`, `--cuda`) and demands (`--require`)."""

    framework: str | None = None  # "pytorch" or "tensorflow"
    framework_version: str | None = None  # "2.5" from `pytorch==2.5`
    cuda: str | None = None
    requirements: tuple[Requirement, ...] = ()
    native_only: bool = False  # `--native-only`: minor-version compatibility does not count
    image: ImageFacts | None = None  # `--image REF`: will this built image run here


Check = Callable[["HostFacts", "Matrix", Intent], list[Finding]]


def finding(
    code: str,
    severity: Severity,
    title: str,
    *,
    detail: str = "",
    fix: str = "",
    evidence: Iterable[tuple[str, object]] = (),
    subject: str = "",
) -> Finding:
    """A finding of a check code: area and allowed severities from the catalogue (KeyError for
    a code missing from catalogue.py, ValueError for a severity it does not list)."""
    return make_finding(
        CATALOGUE[code],
        severity,
        title,
        detail=detail,
        fix=fix,
        evidence=evidence,
        subject=subject,
    )


def issue_about(facts: HostFacts, *names: str) -> str | None:
    """The reason of a probe issue whose field mentions any of `names` (None: no issue)."""
    for issue in facts.issues:
        if any(name in issue.field for name in names):
            return f"{issue.probe}: {issue.reason}"
    return None


def unknown_or_na(facts: HostFacts, *names: str) -> tuple[Severity, str]:
    """A None fact with a probe issue is `unknown`; without one the GPU just doesn't report it."""
    reason = issue_about(facts, *names)
    if reason:
        return Severity.UNKNOWN, f"could not be read ({reason})"
    return Severity.NA, "not reported by this GPU or driver"


_ONE_GPU = re.compile(r"-i N\b")


def group_by_gpu(
    code: str, per_gpu: Iterable[tuple[int, Finding]], *, of: int | None = None
) -> list[Finding]:
    """Merge per-GPU findings with the same severity, title, detail and fix into one whose
    subject lists the GPUs ("GPU 0-7"), so an 8-GPU host gets one line, not eight."""
    groups: dict[tuple[str, str, str, str], tuple[list[int], Finding]] = {}
    for index, f in per_gpu:
        key = (f.severity.value, f.title, f.detail, f.fix)
        groups.setdefault(key, ([], f))[0].append(index)
    merged = []
    for indices, f in groups.values():
        # A per-GPU fix says `nvidia-smi -i N`; for one GPU the command names it, for several
        # the subject lists the N to run it for.
        fix = _ONE_GPU.sub(f"-i {indices[0]}", f.fix) if len(indices) == 1 else f.fix
        merged.append(
            Finding(
                code=code,
                severity=f.severity,
                area=f.area,
                title=f.title,
                detail=f.detail,
                fix=fix,
                evidence=f.evidence,
                subject=gpu_label(indices),
            )
        )
    return sorted(merged, key=lambda f: (-f.severity.rank, f.subject))
