"""Multi-GPU checks on what NVML says: NVLink state and error counters, NVSwitch fabric
registration (the fabric manager), and P2P between GPU pairs with the topology matrix.

Sources: NVLink and fabric states, NVML API reference
(https://docs.nvidia.com/deploy/nvml-api/group__NvLink.html); fabric manager and CUDA error 802,
the Fabric Manager user guide
(https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html); P2P through PCIe
ACS, NCCL's troubleshooting guide
(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding, issue_about
from gpudoctor.checks.placement import not_recorded
from gpudoctor.facts_view import driver_version, live_gpus, nvml_ok
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.wording import gpu_label

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.facts_multigpu import GpuPairFacts, NvLinkFacts
    from gpudoctor.matrix.model import Matrix

# Errors per link since the driver loaded above which a link is called unhealthy. NVML gives
# totals, not rates; a healthy link counts none or a handful over weeks, a failing one thousands.
NVLINK_ERROR_THRESHOLD = 100
ERROR_FIELDS = ("replay_errors", "recovery_errors", "crc_flit_errors", "crc_data_errors")
# nvidia-smi topo -m legend for the PCIe levels.
TOPO_LABELS = {
    "internal": "X",
    "single": "PIX",
    "multiple": "PXB",
    "hostbridge": "PHB",
    "node": "NODE",
    "system": "SYS",
}
# Levels where P2P over PCIe works unless something blocks it (a PCIe switch between the GPUs).
_SAME_SWITCH = frozenset({"single", "multiple"})


def _linked(facts: HostFacts) -> list[GpuFacts]:
    return [g for g in live_gpus(facts) if g.nvlinks]


def _active(g: GpuFacts) -> int:
    return sum(1 for link in g.nvlinks if link.active)


def nvlink_verdict(facts: HostFacts) -> tuple[str | None, str]:
    """("ok" | "degraded" | "none", why) for `--require nvlink=ok`; None when unknown."""
    if not facts.multigpu.collected:
        return None, not_recorded(facts)
    gpus = live_gpus(facts)
    if not gpus:
        return (None, "no GPU visible to NVML") if not nvml_ok(facts) else ("none", "no GPU")
    problems = [
        f for f in check_nvlink(facts) + check_nvlink_errors(facts) if f.severity in (WARN, ERROR)
    ]
    if not _linked(facts):
        return "none", "no NVLink"
    if problems:
        return "degraded", "; ".join(f"{f.subject}: {f.title}" for f in problems)
    return "ok", f"{_active(_linked(facts)[0])} active NVLinks per GPU"


def check_nvlink(facts: HostFacts, matrix: Matrix | None = None, intent: Intent | None = None
                 ) -> list[Finding]:  # fmt: skip
    gpus = live_gpus(facts)
    if not gpus:
        return [finding("nvlink-state", NA, "no GPU visible to NVML")]
    linked = _linked(facts)
    if not linked and not facts.multigpu.collected:
        return [finding("nvlink-state", NA, not_recorded(facts))]
    if not linked:
        return [finding("nvlink-state", NA, "no GPU reports NVLink (PCIe-only GPUs)")]
    found = []
    for g in linked:
        down = [link.link for link in g.nvlinks if link.active is False]
        if down:
            found.append(
                finding(
                    "nvlink-state",
                    WARN,
                    f"NVLink {', '.join(map(str, down))} down ({_active(g)} of "
                    f"{len(g.nvlinks)} active)",
                    detail="each link carries a share of the GPU's NVLink bandwidth: with one "
                    "down, collectives run at the speed of this GPU, without any error",
                    fix=f"see `nvidia-smi nvlink -s -i {g.index}`; reset the GPU (sudo "
                    f"nvidia-smi -i {g.index} -r) or reboot; a link that stays down needs "
                    "hardware service (reseat, baseboard or GPU RMA)",
                    evidence=[("links_down", down), ("links", len(g.nvlinks))],
                    subject=f"GPU {g.index}",
                )
            )
    counts = {g.index: _active(g) for g in linked}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"GPU {i}: {n}" for i, n in sorted(counts.items()))
        found.append(
            finding(
                "nvlink-state",
                WARN,
                "GPUs have unequal numbers of active NVLinks",
                detail=f"active links: {shown}; the GPU with the fewest limits every collective",
                fix="find the GPU with fewer links (`nvidia-smi nvlink -s`); reset or service it",
                evidence=[("active_links", shown)],
                subject=gpu_label(list(counts)),
            )
        )
    if found:
        return found
    g = linked[0]
    versions = sorted({link.version for link in g.nvlinks if link.version})
    remote = sorted({link.remote_type for link in g.nvlinks if link.remote_type})
    return [
        finding(
            "nvlink-state",
            OK,
            f"{_active(g)} active NVLink{' ' + '/'.join(versions) if versions else ''} links "
            f"per GPU" + (f" (to {', '.join(remote)})" if remote else ""),
            evidence=[("active_links", _active(g)), ("gpus", len(linked))],
            subject=gpu_label([x.index for x in linked]),
        )
    ]


def _errors(link: NvLinkFacts) -> int | None:
    values = [getattr(link, name) for name in ERROR_FIELDS]
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def check_nvlink_errors(
    facts: HostFacts, matrix: Matrix | None = None, intent: Intent | None = None
) -> list[Finding]:
    linked = _linked(facts)
    if not linked:
        return [finding("nvlink-errors", NA, "no GPU reports NVLink")]
    found = []
    any_counter = False
    for g in linked:
        bad = []
        for link in g.nvlinks:
            total = _errors(link)
            any_counter = any_counter or total is not None
            if total is not None and total > NVLINK_ERROR_THRESHOLD:
                counts = ", ".join(
                    f"{name.removesuffix('_errors')} {getattr(link, name)}"
                    for name in ERROR_FIELDS
                    if getattr(link, name)
                )
                bad.append(f"link {link.link} ({counts})")
        if bad:
            found.append(
                finding(
                    "nvlink-errors",
                    WARN,
                    f"NVLink error counters above {NVLINK_ERROR_THRESHOLD}: {'; '.join(bad)}",
                    detail="CRC errors and replays mean a marginal link: traffic is resent, "
                    "bandwidth drops, and recoveries stall collectives",
                    fix=f"watch `nvidia-smi nvlink -e -i {g.index}`; if the counters keep "
                    f"growing after a reset (sudo nvidia-smi -i {g.index} -r), the link needs "
                    "hardware service",
                    evidence=[("links", bad), ("threshold", NVLINK_ERROR_THRESHOLD)],
                    subject=f"GPU {g.index}",
                )
            )
    if found:
        return found
    if not any_counter:
        return [finding("nvlink-errors", NA, "the driver reports no NVLink error counters here")]
    return [
        finding(
            "nvlink-errors",
            OK,
            f"NVLink error counters at or below {NVLINK_ERROR_THRESHOLD} per link",
            subject=gpu_label([g.index for g in linked]),
        )
    ]


def fabric_verdict(facts: HostFacts) -> tuple[str | None, str]:
    """("ok" | state | "n/a", why) for `--require fabric=ok`; None when unknown."""
    if not facts.multigpu.collected:
        return None, not_recorded(facts)
    (f,) = check_fabric(facts)[:1]
    if f.severity is OK:
        return "ok", f.title
    if f.severity is NA:
        return "n/a", f.title
    if f.severity is UNKNOWN:
        return None, f.title
    return "not_ready", f.title


def check_fabric(
    facts: HostFacts, matrix: Matrix | None = None, intent: Intent | None = None
) -> list[Finding]:
    gpus = live_gpus(facts)
    registered = [g for g in gpus if g.fabric and g.fabric.state not in (None, "not_supported")]
    switches = facts.multigpu.nvswitch_count or 0
    ev = [("nvswitches", facts.multigpu.nvswitch_count)]
    if not registered:
        if switches and gpus:
            why = issue_about(facts, "fabric") or "the driver does not report a fabric state"
            return [
                finding(
                    "fabric-manager",
                    UNKNOWN,
                    f"{switches} NVSwitch(es) on the PCI bus, but no GPU fabric state ({why})",
                    fix="check `systemctl status nvidia-fabricmanager` and `nvidia-smi -q | "
                    "grep -A3 Fabric` (State: Completed, Status: Success)",
                    evidence=ev,
                )
            ]
        return [finding("fabric-manager", NA, "not an NVSwitch system", evidence=ev)]
    not_ready = [g for g in registered if _fabric_bad(g)]
    pending = [g for g in registered if g.fabric and g.fabric.state == "in_progress"]
    if not_ready:
        g = not_ready[0]
        assert g.fabric is not None
        driver = driver_version(facts) or "<driver version>"
        parts = versions.release(driver)
        branch = str(parts[0]) if parts else driver
        state = g.fabric.state if g.fabric.state != "completed" else "failed"
        return [
            finding(
                "fabric-manager",
                ERROR,
                f"NVLink fabric not ready (state {state}, status {g.fabric.status}): CUDA fails "
                "with error 802 'system not yet initialized'",
                detail="on NVSwitch systems (HGX/DGX) the fabric manager service registers the "
                "GPUs with the NVSwitch fabric; until it has, nvidia-smi shows healthy GPUs but "
                "every CUDA program fails with cudaErrorSystemNotReady (802)",
                fix=f"install the fabric manager of exactly the driver's version {driver} "
                f"(e.g. `sudo apt install nvidia-fabricmanager-{branch}={driver}-1`) and start "
                "it: `sudo systemctl enable --now nvidia-fabricmanager`; check with `nvidia-smi "
                "-q | grep -A3 Fabric` (State: Completed)",
                evidence=[*ev, ("state", g.fabric.state), ("status", g.fabric.status)],
                subject=gpu_label([x.index for x in not_ready]),
            )
        ]
    degraded = {g.index: _health_problems(g) for g in registered if _health_problems(g)}
    if degraded:
        shown = sorted({p for problems in degraded.values() for p in problems})
        return [
            finding(
                "fabric-manager",
                WARN,
                f"NVLink fabric registered but unhealthy: {', '.join(shown)}",
                detail="from the fabric health mask of nvmlDeviceGetGpuFabricInfoV",
                fix="`nvidia-smi -q | grep -A8 Fabric` and `journalctl -u nvidia-fabricmanager` "
                "name the failing links or switches; reset the GPUs or service the baseboard",
                evidence=[*ev, ("health", shown)],
                subject=gpu_label(list(degraded)),
            )
        ]
    if pending:
        return [
            finding(
                "fabric-manager",
                WARN,
                "NVLink fabric registration in progress: CUDA waits or fails with 802 until done",
                fix="wait a minute and re-check; if it stays, `journalctl -u "
                "nvidia-fabricmanager` says why",
                evidence=ev,
                subject=gpu_label([g.index for g in pending]),
            )
        ]
    return [
        finding(
            "fabric-manager",
            OK,
            "GPUs registered with the NVLink fabric (fabric manager running)",
            evidence=ev,
            subject=gpu_label([g.index for g in registered]),
        )
    ]


# NVML_GPU_FABRIC_HEALTH_MASK_*: (shift, value meaning "true", what it says); 2-bit fields.
HEALTH_BITS = (
    (0, 1, "degraded bandwidth"),
    (2, 1, "route recovery in progress"),
    (4, 1, "unhealthy route"),
    (6, 1, "access timeout recovery"),
)


def _health_problems(g: GpuFacts) -> list[str]:
    mask = g.fabric.health_mask if g.fabric else None
    if not mask:
        return []
    return [what for shift, true, what in HEALTH_BITS if (mask >> shift) & 0x3 == true]


def _fabric_bad(g: GpuFacts) -> bool:
    f = g.fabric
    if f is None:
        return False
    return f.state == "not_started" or (f.state == "completed" and f.status not in (0, None))


def _label(facts: HostFacts, pair: GpuPairFacts) -> str:
    """ "NV18" when NVLink P2P works (links of the first GPU that reach the other or a switch),
    else the PCIe level as nvidia-smi topo -m writes it."""
    if pair.p2p_nvlink == "ok":
        gpus = {g.index: g for g in facts.nvml.gpus}
        a, b = gpus.get(pair.gpu_a), gpus.get(pair.gpu_b)
        if a is not None and b is not None:
            n = sum(
                1
                for link in a.nvlinks
                if link.active
                and (link.remote_type == "switch" or link.remote_pci_bus_id == b.pci_bus_id)
            )
            return f"NV{n}"
        return "NV"
    return TOPO_LABELS.get(pair.topology or "", "?")


def topology_matrix(facts: HostFacts) -> str:
    """The `nvidia-smi topo -m` style matrix of the GPU pairs, with the P2P read/write status."""
    indices = sorted({p.gpu_a for p in facts.nvml.pairs} | {p.gpu_b for p in facts.nvml.pairs})
    cell = {(p.gpu_a, p.gpu_b): p for p in facts.nvml.pairs}
    rows = ["      " + "".join(f"{'GPU' + str(i):>7}" for i in indices)]
    for a in indices:
        cells = []
        for b in indices:
            pair = cell.get((min(a, b), max(a, b)))
            cells.append("X" if a == b else _label(facts, pair) if pair else "?")
        rows.append(f"GPU{a:<3}" + "".join(f"{c:>7}" for c in cells))
    rows.append("legend: X self, NV# NVLink (# links), PIX/PXB PCIe switch, PHB host bridge, "
                "NODE within a NUMA node, SYS across NUMA nodes")  # fmt: skip
    return "\n".join(rows)


def _blocked(pair: GpuPairFacts) -> bool:
    """P2P fails where it should work: over NVLink, or below one PCIe switch."""
    rw_ok = pair.p2p_read == "ok" and pair.p2p_write == "ok"
    return not rw_ok and (pair.p2p_nvlink == "ok" or pair.topology in _SAME_SWITCH)


def p2p_verdict(facts: HostFacts) -> tuple[str | None, str]:
    if not facts.multigpu.collected:
        return None, not_recorded(facts)
    (f,) = check_p2p(facts)[:1]
    if f.severity in (OK, INFO):
        return "ok", f.title
    if f.severity is NA:
        return "n/a", f.title
    return (None if f.severity is UNKNOWN else "blocked"), f.title


def check_p2p(
    facts: HostFacts, matrix: Matrix | None = None, intent: Intent | None = None
) -> list[Finding]:
    gpus = live_gpus(facts)
    if len(gpus) < 2:
        return [finding("p2p-topology", NA, "fewer than two GPUs")]
    pairs = facts.nvml.pairs
    if not pairs and not facts.multigpu.collected:
        return [finding("p2p-topology", NA, not_recorded(facts))]
    if not pairs:
        why = issue_about(facts, "pairs") or "not reported (older snapshot or driver)"
        return [finding("p2p-topology", UNKNOWN, f"P2P status unknown: {why}")]
    table = topology_matrix(facts)
    blocked = [p for p in pairs if _blocked(p)]
    ev = [("pairs", len(pairs)), ("blocked", len(blocked))]
    if blocked:
        names = ", ".join(f"{p.gpu_a}-{p.gpu_b}" for p in blocked[:8])
        statuses = sorted(
            {s or "unknown" for p in blocked for s in (p.p2p_read, p.p2p_write) if s != "ok"}
        )
        return [
            finding(
                "p2p-topology",
                WARN,
                f"P2P blocked between GPUs that should reach each other: {names} "
                f"({', '.join(statuses)})",
                detail=table + "\n" + _p2p_cause(facts),
                fix="disable PCIe ACS P2P redirect on the bridges above the GPUs (pcie-acs) "
                "or in the BIOS; set the IOMMU to passthrough (iommu=pt); in a VM, ask for "
                "P2P-capable passthrough; check with `nvidia-smi topo -p2p rw`",
                evidence=ev,
                subject=gpu_label([g.index for g in gpus]),
            )
        ]
    partial = [p for p in pairs if p.p2p_read != "ok" or p.p2p_write != "ok"]
    if partial:
        return [
            finding(
                "p2p-topology",
                INFO,
                f"P2P not available between {len(partial)} of {len(pairs)} GPU pairs (across "
                "host bridges or CPU sockets): NCCL routes those through host memory",
                detail=table,
                evidence=ev,
                subject=gpu_label([g.index for g in gpus]),
            )
        ]
    atomics = all(p.p2p_atomics == "ok" for p in pairs)
    return [
        finding(
            "p2p-topology",
            OK,
            f"P2P read/write{' and atomics' if atomics else ''} between all {len(pairs)} GPU pairs",
            detail=table,
            evidence=ev,
            subject=gpu_label([g.index for g in gpus]),
        )
    ]


def _p2p_cause(facts: HostFacts) -> str:
    redirect = [b.address for b in facts.multigpu.acs if b.redirect]
    if redirect:
        return f"likely cause: ACS P2P redirect on bridge(s) {', '.join(redirect[:4])}"
    translated = [
        g.pci_bus_id for g in facts.multigpu.gpus if g.iommu_group_type in ("DMA", "DMA-FQ")
    ]
    if translated:
        return "likely cause: the IOMMU translates the GPUs' DMA (group type DMA)"
    if facts.platform.virtualization not in (None, "none"):
        return f"likely cause: a VM ({facts.platform.virtualization}) without P2P passthrough"
    return "cause not visible in the facts (check BIOS ACS settings, `lspci -vvv | grep ACSCtl`)"


CHECKS = (check_nvlink, check_nvlink_errors, check_fabric, check_p2p)
