"""`--framework NAME[==VER]` / `--cuda VER`: will this run here, and the newest row that does.

The verdict judges the matrix builds the user asked for against this driver (CUDA minimum, with
minor-version compatibility) and these GPUs (compiled architectures); the newest row comes from
`resolve` with the host's driver and compute capabilities as constraints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.checks.base import (
    Intent,
    driver_version,
    finding,
    gpu_label,
    has_gpu,
    live_gpus,
    version_tuple,
)
from gpudoctor.checks.model import Finding, Severity
from gpudoctor.checks.suggest import driver_verdict
from gpudoctor.errors import NoMatchingRow, UsageError

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

_ALIASES = {
    "pytorch": "pytorch",
    "torch": "pytorch",
    "tensorflow": "tensorflow",
    "tf": "tensorflow",
}
_SPEC = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:==?\s*(\d+(?:\.\d+)*))?\s*$")


def parse_framework(text: str) -> tuple[str, str | None]:
    """ "pytorch==2.5" -> ("pytorch", "2.5"); UsageError for an unknown name or a bad version."""
    match = _SPEC.match(text)
    if match is None:
        raise UsageError(
            f"--framework {text!r} is not NAME or NAME==VERSION",
            hint="e.g. --framework pytorch==2.5 or --framework tensorflow",
        )
    name = _ALIASES.get(match.group(1).lower())
    if name is None:
        raise UsageError(
            f"unknown framework {match.group(1)!r} in --framework {text!r}; known: pytorch, "
            "tensorflow",
            hint="e.g. --framework pytorch==2.5",
        )
    return name, match.group(2)


def parse_cuda(text: str) -> str:
    if not re.fullmatch(r"\s*\d+\.\d+(\.\d+)?\s*", text):
        raise UsageError(f"--cuda {text!r} is not a CUDA version like 12.1", hint="--cuda 12.1")
    return text.strip()


@dataclass(frozen=True)
class _Build:
    label: str  # "pytorch 2.5.1 cu124"
    cuda: str
    arch_list: tuple[str, ...]  # empty: the matrix does not say (tensorflow)
    install: str
    missing: str = ""  # why the build is not published for this host's machine


def _matches(version: str, wanted: str | None) -> bool:
    if wanted is None:
        return True
    want = version_tuple(wanted) or ()
    return (version_tuple(version) or ())[: len(want)] == want


def _candidates(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[_Build]:
    """The builds the intent names, newest release first (only the newest matching release),
    each as published for this host's machine (index, or why it is not)."""
    from gpudoctor.matrix.platforms import available_on, pip_index_args

    machine = facts.platform.machine
    cuda = version_tuple(intent.cuda)[:2] if intent.cuda else None  # type: ignore[index]
    if intent.framework == "tensorflow":
        rows = [r for r in matrix.tensorflow if _matches(r.version, intent.framework_version)]
        rows = [r for r in rows if cuda is None or (version_tuple(r.cuda) or ())[:2] == cuda]
        rows.sort(key=lambda r: version_tuple(r.version) or (), reverse=True)
        out = []
        for r in rows[:1]:
            where = available_on(
                matrix, "tensorflow", r.version, r.cuda, machine=machine, row_index_url=None
            )
            missing = "" if where.ok else where.reason
            out.append(
                _Build(f"tensorflow {r.version}", r.cuda, (), f"pip install '{r.pip}'", missing)
            )
        return out
    releases = [r for r in matrix.pytorch if _matches(r.version, intent.framework_version)]
    found: list[_Build] = []
    for release in sorted(releases, key=lambda r: version_tuple(r.version) or (), reverse=True):
        variants = [
            v for v in release.variants if cuda is None or (version_tuple(v.cuda) or ())[:2] == cuda
        ]
        for v in sorted(variants, key=lambda v: version_tuple(v.cuda) or (), reverse=True):
            where = available_on(
                matrix,
                "pytorch",
                release.version,
                v.cuda,
                machine=machine,
                row_index_url=v.index_url,
            )
            install = f"pip install torch=={release.version}{pip_index_args(where.index_url)}"
            missing = "" if where.ok else where.reason
            found.append(
                _Build(f"pytorch {release.version} {v.tag}", v.cuda, v.arch_list, install, missing)
            )
    # "pytorch==2.5" asks about the newest 2.5.x; a bare "pytorch" about any release.
    newest = found[0].label.split()[1] if found else ""
    return [b for b in found if intent.framework_version is None or b.label.split()[1] == newest]


def _asked(intent: Intent) -> str:
    parts = [intent.framework or "CUDA"]
    if intent.framework_version:
        parts[0] += f"=={intent.framework_version}"
    if intent.cuda and intent.framework:
        parts.append(f"with CUDA {intent.cuda}")
    elif intent.cuda:
        parts[0] += f" {intent.cuda}"
    return " ".join(parts)


def _problems(
    facts: HostFacts, matrix: Matrix, build: _Build, driver: str
) -> tuple[list[str], bool]:
    """Why `build` cannot run here (empty: it can), and whether it needs minor-version compat."""
    from gpudoctor.matrix.queries import arch_list_covers

    verdict = driver_verdict(facts, matrix, driver, build.cuda)
    problems = [] if verdict.ok else [verdict.reason]
    if build.missing:  # an x86-only build never "runs here" on an aarch64 host
        problems.insert(0, build.missing)
    # GPUs that fail for the same reason share one line ("GPU 0-7: ..."), as findings do.
    by_reason: dict[str, list[int]] = {}
    for g in live_gpus(facts):
        if g.compute_capability and build.arch_list:
            arch = arch_list_covers(build.arch_list, g.compute_capability)
            if not arch.ok:
                by_reason.setdefault(arch.reason, []).append(g.index)
    problems.extend(f"{gpu_label(indices)}: {reason}" for reason, indices in by_reason.items())
    return problems, verdict.via == "minor-compat"


def check_intent(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if intent.framework is None and intent.cuda is None:
        return []
    return [_verdict(facts, matrix, intent), _newest_row(facts, matrix, intent)]


def _verdict(facts: HostFacts, matrix: Matrix, intent: Intent) -> Finding:
    code, asked, driver = "intent-verdict", _asked(intent), driver_version(facts)
    if not has_gpu(facts):
        return finding(code, Severity.ERROR, f"{asked} cannot use a GPU here: no NVIDIA GPU")
    if driver is None:
        return finding(code, Severity.UNKNOWN, f"{asked}: driver version unknown")
    builds = (
        _candidates(facts, matrix, intent)
        if intent.framework
        else [_Build(f"CUDA {intent.cuda}", intent.cuda or "", (), "")]
    )
    if not builds:
        return finding(
            code,
            Severity.ERROR,
            f"{asked} is not in the matrix",
            fix="`gpudoctor matrix list` shows the known builds",
        )
    judged = [(b, *_problems(facts, matrix, b, driver)) for b in builds]
    ev = [
        ("driver", driver),
        ("compute_capabilities", [g.compute_capability for g in live_gpus(facts)]),
        ("candidates", [b.label for b in builds]),
    ]
    runs = [(b, compat) for b, problems, compat in judged if not problems]
    if runs:
        best, compat = next(((b, c) for b, c in runs if not c), runs[0])
        sev = Severity.INFO if compat else Severity.OK
        how = " (by minor-version compatibility)" if compat else ""
        return finding(
            code, sev, f"{asked} runs here: {best.label}{how}", fix=best.install, evidence=ev
        )
    b, problems, _ = judged[0]
    return finding(
        code,
        Severity.ERROR,
        f"{asked} will not run here ({b.label})",
        detail="; ".join(problems),
        fix="see intent-newest-row for one that does",
        evidence=ev,
    )


def _newest_row(facts: HostFacts, matrix: Matrix, intent: Intent) -> Finding:
    from gpudoctor.matrix.model import ResolveRequest
    from gpudoctor.matrix.resolve import resolve

    code, driver = "intent-newest-row", driver_version(facts)
    framework = intent.framework or "pytorch"
    if not has_gpu(facts) or driver is None:
        return finding(code, Severity.NA, "needs a GPU with a known driver version")
    ccs = tuple(sorted({g.compute_capability for g in live_gpus(facts) if g.compute_capability}))
    for version in dict.fromkeys((intent.framework_version, None)):
        request = ResolveRequest(
            framework=framework,
            version=version,
            driver=driver,
            compute_capabilities=ccs,
            machine=facts.platform.machine,
        )
        try:
            row = resolve(matrix, request)
        except NoMatchingRow as exc:
            last = exc.message
            continue
        pins = " ".join(row.requirements)
        index = f" --index-url {row.index_url}" if row.index_url else ""
        note = (
            ""
            if version == intent.framework_version
            else f" (no verified {framework}=={intent.framework_version} row fits this host)"
        )
        return finding(
            code,
            Severity.INFO,
            f"newest {framework} this host runs: {row.version} with CUDA {row.cuda}{note}",
            detail=f"matrix row {row.id}; image base {row.base_image}",
            fix=f"pip install {pins}{index}",
            evidence=[("row", row.id), ("driver", driver), ("compute_capabilities", ccs)],
        )
    return finding(
        code,
        Severity.WARN,
        f"no verified {framework} image row in the matrix runs on this host",
        detail="; ".join(line.strip(" :") for line in last.splitlines()[:2]),
        evidence=[("driver", driver)],
    )


CHECKS = (check_intent,)
