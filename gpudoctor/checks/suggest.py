"""What the software and intent checks ask the compatibility model (gpudoctor.compat): the
driver verdict for one CUDA version on this host, and the exact pip command of the build this
host should run (the same build `matrix resolve --from`, `build --from` and the intent lines
name)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.compat.builds import enumerate_builds, installed
from gpudoctor.compat.choose import choices, pick
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.install import for_verdict
from gpudoctor.compat.tiers import driver_tier, judge

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.compat.tiers import DriverTier, Verdict
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


def host_driver_tier(facts: HostFacts, matrix: Matrix, driver: str | None, cuda: str) -> DriverTier:
    """The model's driver tier for `cuda` on this host, judged with `driver` (compat.tiers;
    None: by the CUDA version the driver reports, where the report shows only that)."""
    return driver_tier(matrix, replace(from_facts(facts), driver=driver), cuda)


def installed_build(matrix: Matrix, fw: FrameworkFacts) -> Build | None:
    """The enumerated build an installed framework is (compat.builds.installed, the one lookup
    that images use too)."""
    framework = framework_names.MATRIX_NAME.get(fw.name)
    if framework is None:
        return None
    return installed(matrix, framework, fw.version, fw.cuda)


def install_line(verdict: Verdict, flags: str = "") -> str:
    """The pip command of a judged build (compat.install: the framework with its companions, the
    index for the host's machine), then which of its facts were not read from the wheel."""
    return for_verdict(verdict, flags)


def best_for_host(
    facts: HostFacts, matrix: Matrix, framework: str, *, native_only: bool = False
) -> Verdict | None:
    """The build this host should run (compat.choose.pick)."""
    return pick(matrix, from_facts(facts), framework, native_only=native_only)


def install_for_host(
    facts: HostFacts, matrix: Matrix, framework: str, installed: str | None, flags: str = ""
) -> str | None:
    """At most two labelled pip commands (compat.choose.choices): the installed release in a
    variant that runs here, and the newest build that runs here. None when nothing in the
    matrix runs here."""
    offered = choices(matrix, from_facts(facts), framework, installed)
    if not offered:
        return None
    return "; ".join(f"{label}: {install_line(v, flags)}" for label, v in offered)


def install_for_package(facts: HostFacts, matrix: Matrix, package: str) -> str | None:
    """The install command a known error line's fix names for `package` ("torch" or
    "tensorflow"): the one builder's lines for the installed release, else, on a report that
    shows GPUs but no driver, the newest build whose kernels cover every GPU."""
    framework = framework_names.MATRIX_NAME.get(package)
    if framework is None:
        return None
    fw = next((f for f in facts.frameworks if f.name == package), None)
    line = install_for_host(facts, matrix, framework, fw.version if fw else None)
    if line is not None:
        return line
    covering = _covers_gpus(facts, matrix, framework)
    return install_line(covering) if covering is not None else None


def _covers_gpus(facts: HostFacts, matrix: Matrix, framework: str) -> Verdict | None:
    """With the driver unknown (a paste without nvidia-smi), the newest build whose kernels
    cover every GPU of the report: the driver is judged once it is known."""
    host = from_facts(facts)
    if host.driver is not None or not host.gpus:
        return None
    builds = [b for b in enumerate_builds(matrix, framework) if b.exists and not b.judge_only]
    judged = [judge(matrix, host, b) for b in builds]
    good = [v for v in judged if v.coverage and all(c.ok for c in v.coverage)]
    good.sort(key=lambda v: (versions.pep440(v.build.version), versions.numeric(v.build.cuda)))
    return good[-1] if good else None
