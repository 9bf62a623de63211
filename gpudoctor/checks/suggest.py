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


def tensorflow_install_for_host(facts: HostFacts, matrix: Matrix) -> str | None:
    """`pip install 'tensorflow[and-cuda]==X'` for the release this host should run."""
    best = best_for_host(facts, matrix, "tensorflow")
    return install_line(best) if best is not None else None
