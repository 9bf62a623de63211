"""Jetson (L4T): PyPI's CUDA wheels are not for it. A Jetson's GPU is integrated (Tegra) and
runs JetPack's CUDA; the aarch64 CUDA wheels on PyPI and download.pytorch.org are built for
server Arm (SBSA: Grace, Ampere Altra with a discrete GPU), and NVIDIA publishes separate
framework builds for JetPack ("Installing PyTorch for Jetson Platform"). A framework that brings
nvidia-* CUDA wheels, or a torch with a +cuXXX tag, is the wrong build there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.findings import ERROR, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "jetson-wheel"
_CU_TAG = re.compile(r"\+cu\d{2,3}\b")
_JETSON_DOCS = (
    "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
)


def jetson_release(facts: HostFacts) -> str | None:
    """The L4T release of a Jetson ("36.3.0"); "unknown" on a host that is a Jetson by its GPU
    (the matrix lists the Jetson modules' integrated GPUs by their "Jetson ..." names), its
    "-tegra" kernel or a report naming JetPack, L4T or a Jetson, but not its L4T release; None
    elsewhere."""
    if facts.platform.l4t_release is not None:
        return facts.platform.l4t_release
    names = [g.name for g in facts.nvml.gpus if g.name]
    if any(n.strip().lower().startswith("jetson") for n in names):
        return "unknown"
    if "tegra" in (facts.kernel.release or ""):
        return "unknown"  # L4T's kernels are named "5.15.136-tegra"
    if facts.report is not None and "jetson" in facts.report.named:
        return "unknown"  # a report that names JetPack, L4T or a Jetson module
    return None


def jetson_install(facts: HostFacts, package: str) -> str | None:
    """On a Jetson, where a fix installs a framework: NVIDIA's JetPack build, never a PyPI or
    download.pytorch.org wheel (those are SBSA builds). None on any other host."""
    release = jetson_release(facts)
    if release is None:
        return None
    return f"NVIDIA's {package} build for JetPack ({_l4t(release)}), as {_JETSON_DOCS} describes"


def _l4t(release: str) -> str:
    if release == "unknown":
        return "the L4T release of this Jetson: `cat /etc/nv_tegra_release`"
    return f"L4T R{release.split('.', 1)[0]}"


def check_jetson_wheels(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    release = jetson_release(facts)
    if release is None:
        return [finding(CODE, NA, "not a Jetson (no /etc/nv_tegra_release)")]
    if not facts.frameworks:
        return [finding(CODE, NA, f"Jetson (L4T {release}): no framework installed")]
    return [_judge(fw, release) for fw in facts.frameworks]


def _judge(fw: FrameworkFacts, release: str) -> Finding:
    wheels = [b.package for b in fw.bundled if b.package.startswith("nvidia-")]
    ev = [("l4t_release", release), ("nvidia_wheels", wheels), ("version", fw.version)]
    fix = (
        f"uninstall it and install NVIDIA's {fw.name} build for JetPack ({_l4t(release)}), "
        f"as {_JETSON_DOCS} describes"
    )
    if wheels or (fw.name == "torch" and _CU_TAG.search(fw.version)):
        return finding(
            CODE,
            ERROR,
            f"{fw.label} is a PyPI CUDA build for server Arm (SBSA), not for this Jetson",
            detail=f"L4T {release}: the Jetson's integrated GPU runs JetPack's CUDA; "
            + (
                f"the nvidia-* wheels it brings ({', '.join(wheels[:3])}) are SBSA builds"
                if wheels
                else "the +cu build on the PyTorch index is an SBSA build"
            ),
            fix=fix,
            evidence=ev,
            subject=fw.name,
        )
    if fw.cpu_only:
        return finding(
            CODE,
            WARN,
            f"{fw.label} is a CPU-only build on a Jetson (L4T {release})",
            fix=fix,
            evidence=ev,
            subject=fw.name,
        )
    return finding(
        CODE, OK, f"{fw.label}: no PyPI CUDA wheels on this Jetson", evidence=ev, subject=fw.name
    )


CHECKS = (check_jetson_wheels,)
