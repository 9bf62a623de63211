"""`--framework NAME[==VER]` / `--cuda VER`: will this run here, and the newest row that does.

Both lines ask the compatibility model (gpudoctor.compat): the verdict is `compat.choose.pick`
over the builds the user asked for on this host, the newest row comes from `resolve` with this
host as its target, which ranks builds by the same rule, so the two name the same build; both
pip lines come from the one install-command builder (compat.install).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.suggest import install_line
from gpudoctor.compat.builds import enumerate_builds, matching
from gpudoctor.compat.choose import pick, rank
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.install import for_row
from gpudoctor.compat.tiers import Tier, driver_tier
from gpudoctor.errors import NoMatchingRow
from gpudoctor.facts_view import driver_version, has_gpu, live_gpus
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.inputs import cuda_matches, is_plain_version
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix


def _asked(intent: Intent) -> str:
    parts = [intent.framework or "CUDA"]
    if intent.framework_version:
        parts[0] += f"=={intent.framework_version}"
    if intent.cuda and intent.framework:
        parts.append(f"with CUDA {intent.cuda}")
    elif intent.cuda:
        parts[0] += f" {intent.cuda}"
    return " ".join(parts)


def check_intent(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if intent.framework is None and intent.cuda is None:
        return []
    if intent.framework and not has_gpu(facts) and facts.amd.seen:
        return []  # only AMD GPUs: amd-intent names the ROCm build (checks/amd.py)
    return [_verdict(facts, matrix, intent), _newest_row(facts, matrix, intent)]


def _asked_builds(matrix: Matrix, intent: Intent) -> list[Build]:
    """The builds the intent names: `pytorch==2.5` asks about the newest 2.5.x release, a bare
    `pytorch` about every release; `--cuda` keeps that CUDA's builds."""
    assert intent.framework is not None
    found = matching(
        enumerate_builds(matrix, intent.framework), intent.framework_version, intent.cuda
    )
    if intent.framework_version is None or not found:
        return found
    return [b for b in found if b.version == found[0].version]


def _verdict(facts: HostFacts, matrix: Matrix, intent: Intent) -> Finding:
    code, asked, driver = "intent-verdict", _asked(intent), driver_version(facts)
    if not has_gpu(facts):
        return finding(
            code,
            Severity.ERROR,
            f"{asked} cannot use a GPU here: no NVIDIA GPU",
            fix="Run it on a host with an NVIDIA GPU (in a container: `docker run --gpus all`); "
            "in CI, `--require 'gpus>=1'` makes a GPU-less runner fail the job.",
        )
    if driver is None:
        return finding(code, Severity.UNKNOWN, f"{asked}: driver version unknown")
    if intent.framework is None:
        return _cuda_verdict(facts, matrix, intent, driver)

    builds = _asked_builds(matrix, intent)
    if not builds:
        return finding(
            code,
            Severity.ERROR,
            f"{asked} is not in the matrix",
            fix="`gpudoctor matrix list` shows the known builds",
        )
    host = from_facts(facts)
    ev = [
        ("driver", driver),
        ("compute_capabilities", [g.compute_capability for g in live_gpus(facts)]),
        ("candidates", [b.label for b in builds]),
    ]
    native_only = intent.native_only
    version = builds[0].version if intent.framework_version else None
    best = pick(
        matrix,
        host,
        intent.framework,
        version=version,
        cuda=intent.cuda,
        native_only=native_only,
        judge_only=version is not None,  # a release the user named is judged, old or not
    )
    if best is not None:
        how = "" if best.native else f" (by minor-version compatibility: {best.driver.limits})"
        if any(c.how == "toolkit" for c in best.coverage):  # framework-arch says the same
            how += "; kernels judged by its CUDA toolkit (the matrix has no arch list for it)"
        return finding(
            code,
            Severity.OK if best.native else Severity.INFO,
            f"{asked} runs here: {best.build.label}{how}",
            detail=best.driver.reason,
            fix=install_line(best),
            evidence=[*ev, ("tier", best.tier.value)],
        )
    first = rank(matrix, host, builds[:1], native_only=native_only)[0]
    problems = first.problems() or [
        f"runs by minor-version compatibility only, and --native-only asks for native: "
        f"{first.driver.reason}"
    ]
    return finding(
        code,
        Severity.ERROR,
        f"{asked} will not run here ({first.build.label})",
        detail="; ".join(problems),
        fix=first.driver.way_out or "see intent-newest-row for one that does",
        evidence=[*ev, ("tier", first.tier.value)],
    )


def _cuda_verdict(facts: HostFacts, matrix: Matrix, intent: Intent, driver: str) -> Finding:
    """`--cuda X` alone: does this driver run applications built with CUDA X?"""
    cuda = _concrete_cuda(matrix, intent.cuda or "")
    tier = driver_tier(matrix, from_facts(facts), cuda)
    ev = [("driver", driver), ("tier", tier.tier.value)]
    asked = _asked(intent)
    if tier.tier is Tier.NATIVE or (tier.tier is Tier.MINOR_VERSION and not intent.native_only):
        how = "" if tier.tier is Tier.NATIVE else " (by minor-version compatibility)"
        sev = Severity.OK if tier.tier is Tier.NATIVE else Severity.INFO
        return finding(
            "intent-verdict",
            sev,
            f"{asked} runs here: CUDA {cuda}{how}",
            detail=tier.reason,
            evidence=ev,
        )
    return finding(
        "intent-verdict",
        Severity.ERROR,
        f"{asked} will not run here (CUDA {cuda})",
        detail=tier.reason,
        fix=tier.way_out or "see intent-newest-row for one that does",
        evidence=ev,
    )


def _concrete_cuda(matrix: Matrix, wanted: str) -> str:
    """`--cuda 12` (any 12.x) or a range: the newest CUDA release line of the matrix it admits
    (the newest wins, as everywhere); a version with a minor stays as given."""
    if is_plain_version(wanted) and "." in wanted:
        return wanted
    lines = [c.major_minor for c in matrix.cuda if cuda_matches(c.major_minor, wanted)]
    return max(lines, key=numeric, default=wanted)


def _newest_row(facts: HostFacts, matrix: Matrix, intent: Intent) -> Finding:
    from gpudoctor.compat.request import ResolveRequest  # lazy: --framework/--cuda only
    from gpudoctor.compat.resolve import resolve  # lazy: --framework/--cuda only

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
            host=from_facts(facts),
            native_only=intent.native_only,
        )
        try:
            row = resolve(matrix, request)
        except NoMatchingRow as exc:
            last = exc.message
            continue

        note = (
            ""
            if version == intent.framework_version
            else f" (no {framework}=={intent.framework_version} row fits this host)"
        )
        how = " (by minor-version compatibility)" if row.tier == "minor-version" else ""
        return finding(
            code,
            Severity.INFO,
            f"newest {framework} this host runs: {row.version} with CUDA {row.cuda}{how}{note}",
            detail=f"matrix row {row.id}; image base {row.base_image}",
            fix=for_row(row),
            evidence=[("row", row.id), ("driver", driver), ("compute_capabilities", ccs)],
        )
    return finding(
        code,
        Severity.WARN,
        f"no {framework} image row in the matrix runs on this host",
        detail="; ".join(line.strip(" :") for line in last.splitlines()[:2]),
        fix="Upgrade the NVIDIA driver (newer rows need a newer one); "
        f"`gpudoctor matrix resolve --framework {framework} --allow-unverified` also considers "
        "builds whose existence no primary source settles.",
        evidence=[("driver", driver)],
    )


CHECKS = (check_intent,)
