"""What the software and intent checks ask the compatibility model (gpudoctor.compat): the
driver verdict for one CUDA version on this host, and the exact pip command of the build this
host should run (the same build `matrix resolve --from`, `build --from` and the intent lines
name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.matrix.platforms import pip_index_args

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.compat.tiers import DriverTier, Verdict
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix, PytorchVariant


def host_driver_tier(facts: HostFacts, matrix: Matrix, driver: str, cuda: str) -> DriverTier:
    """The model's driver tier for `cuda` on this host, judged with `driver` (compat.tiers)."""
    from dataclasses import replace

    from gpudoctor.compat.host import from_facts
    from gpudoctor.compat.tiers import driver_tier

    return driver_tier(matrix, replace(from_facts(facts), driver=driver), cuda)


def torch_variant(matrix: Matrix, fw: FrameworkFacts) -> PytorchVariant | None:
    from gpudoctor.matrix.queries import pytorch_release_for, pytorch_variant_for

    release = pytorch_release_for(matrix, fw.version)
    if release is None or fw.cuda is None:
        return None
    return pytorch_variant_for(release, fw.cuda)


def installed_build(matrix: Matrix, fw: FrameworkFacts) -> Build | None:
    """The enumerated build an installed framework is (torch: release x CUDA variant)."""
    from gpudoctor.compat.builds import enumerate_builds, matching

    framework = framework_names.MATRIX_NAME.get(fw.name)
    if framework is None or fw.cuda is None:
        return None
    found = matching(enumerate_builds(matrix, framework), versions.major_minor(fw.version), fw.cuda)
    return found[0] if found else None


_UNVERIFIED_NOTE = " (its matrix row is marked verified = false)"


def install_line(verdict: Verdict, version: str | None = None, flags: str = "") -> str:
    """The pip command of a judged build (`version` pins the installed patch instead; `flags`
    are more pip options, kept inside the command, before any note about the row)."""
    build = verdict.build
    note = "" if build.verified and verdict.index_verified else _UNVERIFIED_NOTE
    if build.framework == "pytorch":
        pin = version or build.version
        # The index for the host's machine (judge): PyPI's aarch64 wheels carry CUDA 13 from
        # 2.11.0, where download.pytorch.org's cuXYZ index holds the x86_64 build.
        return f"pip install torch=={pin}{pip_index_args(verdict.index_url)}{flags}{note}"
    return build.install + flags + note


def best_for_host(
    facts: HostFacts, matrix: Matrix, framework: str, *, native_only: bool = False
) -> Verdict | None:
    """The build this host should run (compat.choose.pick): verified rows first."""
    from gpudoctor.compat.choose import pick
    from gpudoctor.compat.host import from_facts

    return pick(matrix, from_facts(facts), framework, native_only=native_only)


def torch_install_for_host(
    facts: HostFacts, matrix: Matrix, installed: str, flags: str = ""
) -> str | None:
    """`pip install torch==X --index-url URL` for a build that runs here on every GPU: a
    variant of the installed release (the smaller change), else the build this host should
    run. None when nothing in the matrix runs here."""
    from gpudoctor.compat.choose import pick
    from gpudoctor.compat.host import from_facts

    host = from_facts(facts)
    same = pick(matrix, host, "pytorch", version=versions.major_minor(installed))
    if same is not None:
        return install_line(same, versions.public(installed), flags)
    best = pick(matrix, host, "pytorch")
    return install_line(best, flags=flags) if best is not None else None


def tensorflow_install_for_host(
    facts: HostFacts, matrix: Matrix, installed: str | None = None
) -> str | None:
    """`pip install 'tensorflow[and-cuda]==X'` for the release this host should run (the
    installed release when it runs here and `installed` is given)."""
    if installed is not None:
        from gpudoctor.compat.choose import pick
        from gpudoctor.compat.host import from_facts

        same = pick(
            matrix, from_facts(facts), "tensorflow", version=versions.major_minor(installed)
        )
        if same is not None:
            return install_line(same)
    best = best_for_host(facts, matrix, "tensorflow")
    return install_line(best) if best is not None else None


def install_for_host(facts: HostFacts, matrix: Matrix, package: str) -> str | None:
    """The install command of `package` ("torch" or "tensorflow") for this host: for an
    installed torch a variant of its release where one runs here, else the build this host
    should run; None when the facts do not pick one."""
    if package == "torch":
        torch = next((f for f in facts.frameworks if f.name == "torch"), None)
        if torch is not None:
            return torch_install_for_host(facts, matrix, torch.version)
        best = best_for_host(facts, matrix, "pytorch") or _covers_gpus(facts, matrix, "pytorch")
        return install_line(best) if best is not None else None
    if package == "tensorflow":
        return tensorflow_install_for_host(facts, matrix)
    return None


def _covers_gpus(facts: HostFacts, matrix: Matrix, framework: str) -> Verdict | None:
    """With the driver unknown (a paste without nvidia-smi), the newest build whose kernels
    cover every GPU of the report: the driver is judged once it is known."""
    from gpudoctor.compat.builds import enumerate_builds
    from gpudoctor.compat.host import from_facts
    from gpudoctor.compat.tiers import judge

    host = from_facts(facts)
    if host.driver is not None or not host.gpus:
        return None
    judged = [judge(matrix, host, b) for b in enumerate_builds(matrix, framework)]
    good = [v for v in judged if v.coverage and all(c.ok for c in v.coverage) and v.build.verified]
    good.sort(key=lambda v: (versions.pep440(v.build.version), versions.numeric(v.build.cuda)))
    return good[-1] if good else None
