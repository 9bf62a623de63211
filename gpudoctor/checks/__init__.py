"""Checks: pure functions (facts, matrix, intent) -> findings, and the runner over all of them.

`run_checks` runs every registered check, isolating each one (a crashing check becomes an
`unknown` finding, never a crashed report), and returns a CheckRun that the reporters present.
Exit-code policy (documented in `gpudoctor check --help` and the README's "Exit codes"):
- 1 when any finding is `error`, or a `--require` requirement is unmet or cannot be judged;
- with `--strict` also for `warn` and `unknown` findings;
- 5 when a check raised (`check-crashed`): gpudoctor itself failed, which is never a pass;
- 0 otherwise (`ok`, `info`, `n/a`).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpudoctor.areas import AREAS, GPU_AREAS
from gpudoctor.checks import (
    amd,
    companions,
    container_devices,
    containerd_cri,
    deep,
    devices,
    driver,
    driver_support,
    gpu,
    image_verdict,
    intent,
    jetson,
    k8s_events,
    k8s_nodes,
    k8s_operator,
    k8s_resources,
    k8s_runtime,
    k8s_sharing,
    k8s_unrequested,
    links,
    nccl,
    nccl_release,
    pasted_report,
    placement,
    platform,
    programs,
    recorded,
    requirements,
    runtime,
    shadowing,
    singularity,
    software,
    tf_wheels,
    vgpu,
    xid,
)
from gpudoctor.checks.base import Check, Intent
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.checks.summary import headlines
from gpudoctor.errors import BadValue, UsageError
from gpudoctor.exitcodes import ExitCode
from gpudoctor.facts_view import has_gpu
from gpudoctor.findings import Finding, Severity, area_status
from gpudoctor.matrix.inputs import did_you_mean
from gpudoctor.safe_text import clean_finding, printable

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

__all__ = ["REGISTRY", "CheckRun", "Crash", "Intent", "exit_code", "run_checks", "select_codes"]

# (area, check) in report order: the one place a check's area is said (areas.py declares the
# areas); every finding a check reports carries a code of its area (catalogue.py), which a test
# holds it to.
REGISTRY: tuple[tuple[str, Check], ...] = (
    *(("report", c) for c in pasted_report.CHECKS),
    *(("report", c) for c in k8s_events.CHECKS),
    *(("driver", c) for c in driver.CHECKS),
    *(("driver", c) for c in driver_support.CHECKS),
    *(("driver", c) for c in devices.CHECKS),
    *(("driver", c) for c in recorded.CHECKS),
    *(("gpu", c) for c in gpu.CHECKS),
    *(("gpu", c) for c in vgpu.CHECKS),
    *(("platform", c) for c in vgpu.PLATFORM_CHECKS),
    *(("driver", c) for c in vgpu.DRIVER_CHECKS),
    *(("platform", c) for c in platform.CHECKS),
    *(("runtime", c) for c in runtime.CHECKS),
    *(("runtime", c) for c in container_devices.CHECKS),
    *(("runtime", c) for c in k8s_runtime.CHECKS),
    *(("runtime", c) for c in k8s_resources.CHECKS),
    *(("runtime", c) for c in k8s_sharing.CHECKS),
    *(("runtime", c) for c in k8s_unrequested.CHECKS),
    *(("runtime", c) for c in k8s_operator.CHECKS),
    *(("runtime", c) for c in k8s_nodes.CHECKS),
    *(("runtime", c) for c in containerd_cri.CHECKS),
    *(("runtime", c) for c in singularity.CHECKS),
    *(("software", c) for c in software.CHECKS),
    *(("software", c) for c in companions.CHECKS),
    *(("software", c) for c in tf_wheels.CHECKS),
    *(("software", c) for c in jetson.CHECKS),
    *(("software", c) for c in programs.CHECKS),
    *(("software", c) for c in shadowing.CHECKS),
    *(("software", c) for c in deep.CHECKS),
    *(("multigpu", c) for c in (*links.CHECKS, *placement.CHECKS, *nccl.CHECKS, *xid.CHECKS)),
    *(("multigpu", c) for c in nccl_release.CHECKS),
    *(("amd", c) for c in amd.CHECKS),
    *(("intent", c) for c in intent.CHECKS),
    *(("intent", c) for c in amd.INTENT_CHECKS),
    *(("intent", c) for c in image_verdict.CHECKS),
    ("requirements", requirements.check_requirements),
)


@dataclass(frozen=True)
class Crash:
    """A check that raised, or a probe whose crash the facts record: which one, and the
    exception (shown only under --debug: its class name and traceback help a maintainer, not
    the person reading the report)."""

    check: str  # the check function's or the probe's name
    area: str
    error: str  # "ValueError: ..."
    traceback: str  # "" for a probe: the facts keep its error only
    kind: str = "check"  # or "probe"


@dataclass(frozen=True)
class CheckRun:
    """Everything a reporter presents: the findings in report order and one headline per area."""

    findings: tuple[Finding, ...]
    headlines: dict[str, str] = field(default_factory=dict)
    strict: bool = False
    crashes: tuple[Crash, ...] = ()  # kept even when --skip hides their findings
    no_gpu: bool = False  # neither NVML nor the PCI bus shows an NVIDIA GPU

    def area_status(self, area: str) -> Severity:
        """The status every reporter shows for an area: its worst problem, else ok, else n/a.
        An area that needs a GPU, on a host without one, checked nothing: n/a, not ok (its
        "no NCCL variable set" and "no XID logged" are true, but not a passed GPU check)."""
        status = area_status(f.severity for f in self.findings if f.area == area)
        if self.no_gpu and area in GPU_AREAS and status is Severity.OK:
            return Severity.NA
        return status

    @property
    def exit_code(self) -> int:
        if self.crashes:
            return int(ExitCode.INTERNAL)
        return exit_code(self.findings, strict=self.strict)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def areas(self) -> list[str]:
        return [a for a in AREAS if any(f.area == a for f in self.findings)]


def fails(f: Finding, *, strict: bool) -> bool:
    """Does this finding make `gpudoctor check` exit 1?"""
    if f.severity is Severity.ERROR:
        return True
    if f.area == "requirements" and f.severity is Severity.UNKNOWN:
        return True  # a requirement nobody could verify is not met
    return strict and f.severity in (Severity.WARN, Severity.UNKNOWN)


def exit_code(findings: Iterable[Finding], *, strict: bool = False) -> int:
    findings = tuple(findings)
    if any(f.code == CRASHED for f in findings):
        return int(ExitCode.INTERNAL)
    return int(ExitCode.FAILED if any(fails(f, strict=strict) for f in findings) else ExitCode.OK)


def select_codes(option: str, codes: Iterable[str]) -> frozenset[str]:
    """Validate --only/--skip codes against the catalogue; UsageError names the unknown one."""
    wanted = frozenset(c.strip() for c in codes if c.strip())
    unknown = sorted(wanted - CATALOGUE.keys())
    if unknown:
        guess = did_you_mean(unknown[0], CATALOGUE)
        raise UsageError(
            f"{option}: unknown check code {unknown[0]!r}",
            hint=(f"did you mean {guess}? " if guess else "")
            + "`gpudoctor check --list` prints every code",
        )
    return wanted


def run_checks(
    facts: HostFacts,
    matrix: Matrix,
    intent: Intent | None = None,
    *,
    only: frozenset[str] = frozenset(),
    skip: frozenset[str] = frozenset(),
    strict: bool = False,
) -> CheckRun:
    intent = intent or Intent()
    # A Jetson's JetPack fixes its CUDA: filled in from the matrix before any check reads it.
    facts = jetson.with_jetpack(facts, matrix)
    found: list[Finding] = []
    crashes: list[Crash] = []
    for area, check in REGISTRY:
        found += _run_one(area, check, facts, matrix, intent, crashes=crashes)
    found = pasted_report.link_error_lines(
        found
    )  # before --only/--skip: a skipped finding still counts
    found = [f for f in found if (not only or f.code in only) and f.code not in skip]
    # Findings quote host data (GPU names, error texts): cleaned once here, for every reporter.
    lines = {area: printable(text) for area, text in headlines(facts, intent).items()}
    # A probe that crashed while collecting these facts: its part of the report is missing.
    crashes += [
        Crash(i.probe, "probe", i.reason, "", kind="probe")
        for i in facts.issues
        if i.code == "probe-crashed"
    ]

    return CheckRun(
        tuple(clean_finding(f) for f in found),
        lines,
        strict,
        tuple(crashes),
        no_gpu=not has_gpu(facts),
    )


CRASHED = "check-crashed"


def _run_one(
    area: str,
    check: Check,
    facts: HostFacts,
    matrix: Matrix,
    intent: Intent,
    *,
    crashes: list[Crash] | None = None,
) -> list[Finding]:
    try:
        return check(facts, matrix, intent)
    except BadValue as exc:  # a recorded value the matrix queries cannot read: not a bug
        return [
            Finding(
                code="unreadable-value",
                severity=Severity.UNKNOWN,
                area=area,
                title=f"{check.__name__}: {exc.message}",
                fix=CATALOGUE["unreadable-value"].fix,
            )
        ]
    except Exception as exc:  # a check bug must not hide every other finding (flutter's crash)
        if crashes is not None:
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            crashes.append(Crash(check.__name__, area, f"{type(exc).__name__}: {exc}", text))
        return [
            Finding(
                code=CRASHED,
                severity=Severity.UNKNOWN,
                area=area,
                title="this check crashed, so its answer is unknown (a gpudoctor bug)",
                fix=CATALOGUE[CRASHED].fix,
                subject=check.__name__,
            )
        ]
