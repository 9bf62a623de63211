"""Multi-GPU checks on where the GPUs sit: PCIe ACS on the bridges above them, the IOMMU
translation type of their groups, NUMA node and local CPUs, and the reduced-precision modes of
each GPU's architecture (from the matrix's architecture table).

Sources: ACS and P2P, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html
(PCI Access Control Services, the setpci command); IOMMU group types,
https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-kernel-iommu_groups.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding, group_by_gpu
from gpudoctor.facts_view import live_gpus
from gpudoctor.findings import INFO, NA, OK, UNKNOWN, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

TRANSLATED = frozenset({"DMA", "DMA-FQ"})


def not_recorded(facts: HostFacts) -> str:
    """Why a fact is missing: a pasted report does not show it; a snapshot without it was
    written by an older gpudoctor (every probe records its field, empty or not)."""
    if facts.report is not None:
        return "not in the report"
    return "not recorded in this snapshot (written by an older gpudoctor)"


def gpu_count(facts: HostFacts) -> int:
    """GPUs here: NVML's count, else the GPUs on the PCI bus."""
    return max(len(live_gpus(facts)), len(facts.multigpu.gpus))


def _not_collected(code: str, facts: HostFacts) -> list[Finding] | None:
    if facts.multigpu.collected:
        return None
    return [finding(code, NA, not_recorded(facts))]


def check_acs(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    m = facts.multigpu
    if gpu_count(facts) < 2:
        return [finding("pcie-acs", NA, "fewer than two GPUs: no peer-to-peer traffic")]
    if (missing := _not_collected("pcie-acs", facts)) is not None:
        return missing
    if any(d.driver == "vfio-pci" for d in facts.kernel.pci_devices if d.kind == "gpu"):
        return [
            finding(
                "pcie-acs",
                NA,
                "GPUs are bound to vfio-pci: ACS isolates them for passthrough, keep it on",
            )
        ]
    redirect = [b for b in m.acs if b.redirect]
    ev = [("bridges", len(m.acs)), ("redirecting", [b.address for b in redirect])]
    if redirect:
        commands = "; ".join(f"sudo setpci -s {b.address} ECAP_ACS+0x6.w=0000" for b in redirect)
        return [
            finding(
                "pcie-acs",
                WARN,
                f"PCIe ACS P2P redirect on {len(redirect)} bridge(s) above the GPUs: peer "
                "traffic goes up to the root complex (slow P2P, or NCCL hangs)",
                detail="bridges: " + ", ".join(b.address for b in redirect),
                fix=f"turn ACS off in the BIOS, or until the next boot: {commands}",
                evidence=ev,
            )
        ]
    if m.acs_unreadable_reason:
        return [finding("pcie-acs", NA, f"not judged: {m.acs_unreadable_reason}", evidence=ev)]
    return [
        finding(
            "pcie-acs",
            OK,
            f"ACS P2P redirect off on the {len(m.acs)} bridge(s) above the GPUs",
            evidence=ev,
        )
    ]


def check_iommu_groups(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if gpu_count(facts) < 2:
        return [finding("gpu-iommu-groups", NA, "fewer than two GPUs")]
    if (missing := _not_collected("gpu-iommu-groups", facts)) is not None:
        return missing
    types = {g.pci_bus_id: g.iommu_group_type for g in facts.multigpu.gpus}
    if not any(types.values()):
        return [finding("gpu-iommu-groups", NA, "no IOMMU groups (IOMMU off or not visible)")]
    translated = sorted(bus for bus, kind in types.items() if kind in TRANSLATED)
    ev = [("group_types", sorted({k for k in types.values() if k}))]
    if facts.platform.virtualization not in (None, "none"):
        return [
            finding(
                "gpu-iommu-groups",
                NA,
                "in a VM the hypervisor's IOMMU settings decide P2P, not the guest's",
                evidence=ev,
            )
        ]
    if translated:
        return [
            finding(
                "gpu-iommu-groups",
                WARN,
                f"the IOMMU translates DMA of {len(translated)} GPU(s) (group type "
                f"{'/'.join(sorted({types[b] or '' for b in translated}))}): "
                "peer-to-peer traffic is remapped or blocked",
                detail="GPUs: " + ", ".join(translated),
                fix="add `iommu=pt` (and `intel_iommu=on` or `amd_iommu=on`) to the kernel "
                "command line (GRUB_CMDLINE_LINUX in /etc/default/grub; sudo update-grub) and "
                "reboot",
                evidence=ev,
            )
        ]
    return [finding("gpu-iommu-groups", OK, "GPUs' IOMMU groups pass DMA through", evidence=ev)]


def check_locality(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if gpu_count(facts) == 0:
        return [finding("gpu-locality", NA, "no GPU")]
    if (missing := _not_collected("gpu-locality", facts)) is not None:
        return missing
    if not facts.multigpu.gpus:
        return [finding("gpu-locality", NA, "no GPU visible in sysfs (/sys/bus/pci)")]
    index = {g.pci_bus_id: g.index for g in facts.nvml.gpus if g.pci_bus_id}
    per_gpu = []
    for pos, g in enumerate(facts.multigpu.gpus):
        where = index.get(g.pci_bus_id, pos)
        if g.numa_node is None:
            f = finding(
                "gpu-locality",
                INFO,
                "NUMA node not reported (one NUMA node, or a VM that hides it)",
                evidence=[("pci_bus_id", g.pci_bus_id)],
            )
        else:
            f = finding(
                "gpu-locality",
                OK,
                f"NUMA node {g.numa_node}, CPUs {g.cpu_list or 'unknown'}",
                detail="pin each rank's CPU threads to its GPU's CPUs (numactl "
                f"--cpunodebind={g.numa_node}) to keep host-device copies local",
                evidence=[("numa_node", g.numa_node), ("cpu_list", g.cpu_list)],
            )
        per_gpu.append((where, f))
    return group_by_gpu("gpu-locality", per_gpu)


def gpu_precisions(matrix: Matrix, compute_capability: str | None) -> tuple[str, ...] | None:
    """The reduced-precision modes of the architecture row for this compute capability."""
    for row in matrix.architectures:
        if row.compute_capability == compute_capability:
            return row.precisions
    return None


def check_precision(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    gpus = live_gpus(facts)
    if not gpus:
        return [finding("precision-modes", NA, "no GPU visible to NVML")]
    per_gpu = []
    for g in gpus:
        modes = gpu_precisions(matrix, g.compute_capability)
        ev = [("compute_capability", g.compute_capability), ("precisions", modes)]
        if modes is None:
            f = finding(
                "precision-modes",
                UNKNOWN,
                f"not in the matrix (compute capability {g.compute_capability or 'unknown'})",
                evidence=ev,
            )
        else:
            shown = ", ".join(m.upper() for m in modes) if modes else "none of TF32/BF16/FP8/FP4"
            f = finding("precision-modes", OK, f"tensor-core modes: {shown}", evidence=ev)
        per_gpu.append((g.index, f))
    return group_by_gpu("precision-modes", per_gpu)


CHECKS = (check_acs, check_iommu_groups, check_locality, check_precision)
