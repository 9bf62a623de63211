"""Per-GPU checks: MIG, ECC, memory repair, persistence, PCIe link, throttling, virtualization.

Each check judges every GPU NVML sees and merges GPUs with the same verdict into one finding
("GPU 0-7"). A None fact is `unknown` when a probe recorded why, `n/a` when the GPU simply does
not report it (consumer GPUs have no row remapping, pre-Ampere GPUs no MIG).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding, group_by_gpu, unknown_or_na
from gpudoctor.facts_view import live_gpus
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.queries import mig_gpu_for
from gpudoctor.wording import gib

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


PerGpu = Callable[["HostFacts", "Matrix", "GpuFacts"], Finding]


def _per_gpu(code: str, judge: PerGpu) -> Callable[[HostFacts, Matrix, Intent], list[Finding]]:
    def check(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
        gpus = live_gpus(facts)
        if not gpus:
            return [finding(code, NA, "no GPU visible to NVML")]
        return group_by_gpu(code, ((g.index, judge(facts, matrix, g)) for g in gpus))

    check.__name__ = f"check_{code.replace('-', '_')}"
    check.__doc__ = judge.__doc__
    return check


def _missing(facts: HostFacts, code: str, what: str, field: str) -> Finding:
    sev, why = unknown_or_na(facts, field)
    return finding(code, sev, f"{what} {why}")


def identity(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """What the GPU is (shown with -v)."""
    if g.name is None:
        return _missing(facts, "gpu-identity", "GPU name", "name")
    cc = f", compute capability {g.compute_capability}" if g.compute_capability else ""
    return finding(
        "gpu-identity",
        OK,
        f"{g.name}, {gib(g.memory_total_bytes)}{cc}",
        evidence=[
            ("name", g.name),
            ("memory_total_bytes", g.memory_total_bytes),
            ("compute_capability", g.compute_capability),
            ("architecture", g.architecture),
        ],
    )


def _mig_capable(matrix: Matrix, g: GpuFacts) -> bool | None:
    return None if g.name is None else mig_gpu_for(matrix, g.name) is not None


def mig(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """MIG on means frameworks see MIG instances, not the GPU."""
    ev = [("mig_mode_current", g.mig_mode_current), ("mig_instances", len(g.mig_devices))]
    if g.mig_mode_current is None:
        return _mig_mode_unknown(facts, matrix, g, ev)
    if not g.mig_mode_current:
        return finding("mig-mode", OK, "MIG off", evidence=ev)
    if not g.mig_devices:
        return _mig_on_none_listed(facts, ev)
    return finding(
        "mig-mode",
        INFO,
        f"MIG on, {len(g.mig_devices)} instance(s)",
        detail="frameworks see MIG instances only, one per process: select one with "
        "CUDA_VISIBLE_DEVICES=MIG-<uuid> (`nvidia-smi -L` lists them)",
        evidence=ev,
    )


def _lost_at_reboot(facts: HostFacts) -> bool:
    """The paste's text says the MIG instances went at a reboot (pasted/facts_scan/mig_vgpu.py)."""
    return facts.report is not None and "mig-lost-at-reboot" in facts.report.named


def _mig_mode_unknown(
    facts: HostFacts, matrix: Matrix, g: GpuFacts, ev: Sequence[tuple[str, object]]
) -> Finding:
    """No MIG mode in the report: n/a on a GPU without MIG; on a MIG GPU whose instances the
    text says went at a reboot, that (MIG mode persists, the instances do not); else unknown."""
    capable = _mig_capable(matrix, g)
    if capable is False:
        return finding("mig-mode", NA, "GPU is not MIG-capable", evidence=ev)
    if capable and _lost_at_reboot(facts):
        return _mig_without_instances(
            "the text says the GPU's MIG instances are gone after a reboot", ev
        )
    return _missing(facts, "mig-mode", "MIG mode", "mig_mode")


def _mig_on_none_listed(facts: HostFacts, ev: Sequence[tuple[str, object]]) -> Finding:
    """MIG on and no MIG device read: none exist where the report lists them (or the text says
    they went at a reboot); unknown where it does not list them."""
    report = facts.report
    if report is None or "mig-listing" in report.named:
        return _mig_without_instances(
            "MIG on with no MIG instances: CUDA sees no device on this GPU", ev
        )
    if _lost_at_reboot(facts):
        return _mig_without_instances(
            "MIG on; the text says its MIG instances are gone after a reboot", ev
        )
    # A paste cut off above the table's `MIG devices:` block, or without `nvidia-smi -L`,
    # does not say the GPU has no instances (its memory may be in use by them).
    return finding(
        "mig-mode",
        UNKNOWN,
        "MIG on; the report does not list the GPU's MIG instances",
        detail="neither the `MIG devices:` block of the nvidia-smi table nor `nvidia-smi -L` "
        "is in the report",
        fix="`nvidia-smi -L` lists the MIG devices of each GPU",
        evidence=ev,
    )


def _mig_without_instances(title: str, ev: Sequence[tuple[str, object]]) -> Finding:
    """A GPU in MIG mode with no instance on it (the report lists none, or the text says they
    went at a reboot): CUDA has no device there until they are created again."""
    return finding(
        "mig-mode",
        WARN,
        title,
        # MIG mode is kept across reboots, its instances are not (NVIDIA's MIG user
        # guide; mig-parted's systemd service exists to apply them again at boot)
        detail="MIG mode survives a reboot (and a driver reload or GPU reset), its GPU and "
        "compute instances do not: after a reboot the GPU is in MIG mode with nothing on it, and "
        "CUDA sees no device there, until they are created again",
        fix="create instances: sudo nvidia-smi mig -i N -cgi <profile ids> -C (at every "
        "boot: nvidia-mig-parted's systemd service, or the GPU Operator's MIG manager, which "
        "applies the node's nvidia.com/mig.config layout again); or turn MIG off: "
        "sudo nvidia-smi -i N -mig 0",
        evidence=ev,
    )


def mig_pending(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """MIG pending != current: the change waits for a GPU reset."""
    cur, pend = g.mig_mode_current, g.mig_mode_pending
    ev = [("mig_mode_current", cur), ("mig_mode_pending", pend)]
    if cur is None or pend is None:
        if _mig_capable(matrix, g) is False:
            return finding("mig-mode-pending", NA, "GPU is not MIG-capable", evidence=ev)
        return _missing(facts, "mig-mode-pending", "pending MIG mode", "mig_mode")
    if cur == pend:
        return finding("mig-mode-pending", OK, "no MIG mode change pending", evidence=ev)
    blocker = (
        "; nvidia_drm is loaded and blocks the reset: unload it first (sudo rmmod nvidia_drm)"
        if "nvidia_drm" in facts.kernel.modules_loaded
        else ""
    )
    return finding(
        "mig-mode-pending",
        WARN,
        f"MIG mode change pending ({_on(cur)} -> {_on(pend)}): a GPU reset is due",
        detail="the new mode applies only after the GPU is reset" + blocker,
        fix="stop GPU processes and nvidia-persistenced, then sudo nvidia-smi -i N -r; or reboot",
        evidence=ev,
    )


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def ecc_pending(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """ECC pending != current: applies at the next reset."""
    cur, pend = g.ecc_mode_current, g.ecc_mode_pending
    ev = [("ecc_mode_current", cur), ("ecc_mode_pending", pend)]
    if cur is None or pend is None:
        return _missing(facts, "ecc-mode-pending", "ECC mode", "ecc_mode")
    if cur == pend:
        return finding("ecc-mode-pending", OK, f"ECC {_on(cur)}, no change pending", evidence=ev)
    return finding(
        "ecc-mode-pending",
        WARN,
        f"ECC mode change pending ({_on(cur)} -> {_on(pend)})",
        fix="sudo nvidia-smi -i N -r (or reboot) to apply it",
        evidence=ev,
    )


def ecc_errors(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Volatile uncorrected ECC errors."""
    n = g.ecc_uncorrected_volatile
    if n is None:
        return _missing(facts, "ecc-errors", "ECC error count", "ecc_uncorrected")
    ev = [("ecc_uncorrected_volatile", n)]
    if n == 0:
        return finding("ecc-errors", OK, "no uncorrected ECC errors", evidence=ev)
    return finding(
        "ecc-errors",
        WARN,
        f"{n} uncorrected ECC error(s) since the driver loaded",
        fix="drain the GPU and reset it (sudo nvidia-smi -i N -r); RMA if errors return",
        evidence=ev,
    )


def memory_repair(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Retired pages or remapped rows waiting for a reset."""
    pages, rows = g.retired_pages_pending, g.remapped_rows_pending
    ev = [
        ("retired_pages_pending", pages),
        ("retired_pages_count", g.retired_pages_count),
        ("remapped_rows_pending", rows),
    ]
    if pages is None and rows is None:
        return _missing(facts, "memory-repair-pending", "memory repair state", "_pending")
    pending = [what for what, flag in (("retired pages", pages), ("remapped rows", rows)) if flag]
    if not pending:
        return finding("memory-repair-pending", OK, "no memory repair pending", evidence=ev)
    return finding(
        "memory-repair-pending",
        WARN,
        f"{' and '.join(pending)} pending: a GPU reset is due",
        detail="the faulty memory stays in use until the GPU is reset",
        fix="drain the GPU, then sudo nvidia-smi -i N -r (or reboot)",
        evidence=ev,
    )


def remap_failure(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Row remapping failure: out of spare rows."""
    fail = g.remapped_rows_failure
    ev = [("remapped_rows_failure", fail)]
    if fail is None:
        return _missing(facts, "row-remap-failure", "row remapping", "remapped_rows")
    if not fail:
        return finding("row-remap-failure", OK, "no row remapping failure", evidence=ev)
    return finding(
        "row-remap-failure",
        ERROR,
        "row remapping failed: memory errors can no longer be repaired",
        fix="take the GPU out of service and RMA it",
        evidence=ev,
    )


def persistence(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Persistence mode off slows each CUDA start."""
    ev = [("persistence_mode", g.persistence_mode)]
    if facts.platform.wsl:
        return finding("persistence-mode", NA, "not available under WSL", evidence=ev)
    if g.persistence_mode is None:
        return _missing(facts, "persistence-mode", "persistence mode", "persistence")
    if g.persistence_mode:
        return finding("persistence-mode", OK, "persistence mode on", evidence=ev)
    if facts.report is not None:
        # A pasted report is read to answer the failure it was posted for; a slower CUDA start
        # is never that failure, and a table printed in a container or a VM shows a setting of
        # a host the reader may not run. The advice stays, as a note.
        return finding(
            "persistence-mode",
            INFO,
            "persistence mode off (as the report shows)",
            detail="the driver tears GPU state down between clients, so each CUDA start is "
            "slower; on a headless compute host, enable it (sudo systemctl enable --now "
            "nvidia-persistenced)",
            evidence=ev,
        )
    if _desktop_gpu(g.name):
        # NVIDIA's driver persistence guide: a running X server keeps the GPU initialised;
        # the daemon is for headless compute GPUs, where the teardown costs each CUDA start.
        return finding(
            "persistence-mode",
            INFO,
            "persistence mode off on a desktop GPU",
            detail="a GeForce/TITAN usually drives a display, whose server keeps the driver "
            "loaded; on a headless compute node, enable it (sudo systemctl enable --now "
            "nvidia-persistenced) for faster CUDA start",
            evidence=ev,
        )
    return finding(
        "persistence-mode",
        WARN,
        "persistence mode off",
        detail="the driver tears GPU state down between clients: slower CUDA start, settings "
        "can reset",
        fix="sudo systemctl enable --now nvidia-persistenced (or sudo nvidia-smi -pm 1)",
        evidence=ev,
    )


def _desktop_gpu(name: str | None) -> bool:
    """NVIDIA's consumer brands: GeForce and TITAN."""
    words = (name or "").upper().split()
    return "GEFORCE" in words or any(w.startswith("TITAN") for w in words)


def pcie_width(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """A narrower link than the maximum is a seating/slot problem."""
    cur, top = g.pcie_link_width_current, g.pcie_link_width_max
    ev = [("pcie_link_width_current", cur), ("pcie_link_width_max", top)]
    if cur is None or top is None:
        return _missing(facts, "pcie-link-width", "PCIe link width", "pcie_link_width")
    if cur >= top:
        return finding("pcie-link-width", OK, f"PCIe x{cur}", evidence=ev)
    return finding(
        "pcie-link-width",
        WARN,
        f"PCIe link x{cur} of x{top}: host-device bandwidth reduced",
        detail="the width does not down-train at idle, so this is a seating, riser or slot issue",
        fix="reseat the GPU/riser; check the slot's lane wiring and BIOS bifurcation settings",
        evidence=ev,
    )


def pcie_gen(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """A lower generation than the maximum is normal at idle."""
    cur, top = g.pcie_link_gen_current, g.pcie_link_gen_max
    ev = [("pcie_link_gen_current", cur), ("pcie_link_gen_max", top)]
    if cur is None or top is None:
        return _missing(facts, "pcie-link-gen", "PCIe link generation", "pcie_link_gen")
    if cur >= top:
        return finding("pcie-link-gen", OK, f"PCIe Gen{cur}", evidence=ev)
    return finding(
        "pcie-link-gen",
        INFO,
        f"PCIe Gen{cur} of Gen{top} (links down-train at idle)",
        fix="re-check under load: nvidia-smi -q -d PCIE",
        evidence=ev,
    )


_SLOWDOWN = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")


def throttling(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Thermal and power slowdowns cost performance; gpu_idle is benign."""
    reasons = g.clock_event_reasons
    if reasons is None:
        return _missing(facts, "clock-throttling", "clock-event reasons", "clock_event")
    ev = [
        ("clock_event_reasons", tuple(sorted(reasons))),
        ("temperature_c", g.temperature_c),
        ("power_usage_w", g.power_usage_w),
        ("power_limit_w", g.power_limit_w),
    ]
    bad = sorted(r for r in reasons if r in _SLOWDOWN)
    if bad:
        return finding(
            "clock-throttling",
            WARN,
            f"clocks slowed down: {', '.join(bad)}",
            fix="check cooling, airflow and power cables; nvidia-smi -q -d PERFORMANCE,TEMPERATURE",
            evidence=ev,
        )
    if "sw_power_cap" in reasons:
        return finding(
            "clock-throttling", INFO, "clocks held at the software power cap", evidence=ev
        )
    return finding("clock-throttling", OK, "no thermal or power slowdown", evidence=ev)


def virtualization(facts: HostFacts, matrix: Matrix, g: GpuFacts) -> Finding:
    """Bare metal, passthrough or vGPU."""
    mode = g.virtualization_mode
    ev = [("virtualization_mode", mode)]
    if mode is None:
        return _missing(facts, "gpu-virtualization", "virtualization mode", "virtualization")
    if mode == "none":
        return finding("gpu-virtualization", OK, "bare-metal GPU", evidence=ev)
    if mode == "passthrough":
        return finding(
            "gpu-virtualization", INFO, "whole GPU passed through to this VM", evidence=ev
        )
    if mode == "vgpu":
        return finding(
            "gpu-virtualization",
            INFO,
            "vGPU guest: a shared, host-managed GPU slice",
            detail="MIG and ECC changes go through the hypervisor; vGPU needs a licence, without "
            "one performance is capped after a grace period",
            fix="check the licence: nvidia-smi -q | grep -i -A2 licen",
            evidence=ev,
        )
    return finding("gpu-virtualization", INFO, f"virtualization mode {mode}", evidence=ev)


CHECKS = tuple(
    _per_gpu(code, judge)
    for code, judge in (
        ("gpu-identity", identity),
        ("mig-mode", mig),
        ("mig-mode-pending", mig_pending),
        ("ecc-mode-pending", ecc_pending),
        ("ecc-errors", ecc_errors),
        ("memory-repair-pending", memory_repair),
        ("row-remap-failure", remap_failure),
        ("persistence-mode", persistence),
        ("pcie-link-width", pcie_width),
        ("pcie-link-gen", pcie_gen),
        ("clock-throttling", throttling),
        ("gpu-virtualization", virtualization),
    )
)
