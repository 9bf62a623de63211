"""Per-GPU NVML collection: one `GpuFacts` per index, a placeholder when the GPU is unusable.

Fields are written into the session's `current_gpu` dict as they are read, so that a timeout
half-way through a GPU still reports what that GPU did answer. Command-line equivalents are
given per group so a user can check a value by hand.
"""

from __future__ import annotations

from typing import Any

from gpudoctor.facts import GpuFacts, MigDevice
from gpudoctor.probes.nvml_decode import (
    addressing_mode_name,
    architecture_name,
    brand_name,
    clock_event_reason_names,
    grid_license,
    normalize_bus_id,
    pci_device_id_text,
    text,
    virtualization_name,
)
from gpudoctor.probes.nvml_links import collect_links
from gpudoctor.probes.nvml_session import (
    NO_PERMISSION,
    DeviceQuery,
    GpuUnusable,
    NvmlSession,
    describe,
    error_code,
)

# nvml.h constants used as arguments (stable ABI values).
MEMORY_ERROR_TYPE_UNCORRECTED = 1
VOLATILE_ECC = 0
RETIREMENT_CAUSE_MULTIPLE_SBE = 0
RETIREMENT_CAUSE_DBE = 1
TEMPERATURE_GPU = 0
MEMORY_V2 = 0x02000028  # nvmlMemory_v2: (2 << 24) | sizeof(nvmlMemory_v2_t)


def collect_gpu(session: NvmlSession, index: int) -> GpuFacts:
    """Everything NVML says about GPU `index`; never raises except `Cancelled`."""
    fields: dict[str, Any] = {"index": index}
    session.current_gpu = fields
    try:
        q = DeviceQuery(session, index, _handle(session, index))
        _identity(q, fields)
        _mig(q, fields)
        _memory_health(q, fields)
        _state(q, fields)
        collect_links(q, fields)
    except GpuUnusable as gone:
        session.issue(
            f"nvml.gpus[{index}]",
            "nvml-gpu-lost" if gone.lost else "nvml-no-permission",
            gone.reason,
        )
        fields.update(lost=gone.lost, error=gone.reason)
    finally:
        session.current_gpu = None
    return GpuFacts(**fields)


def _handle(session: NvmlSession, index: int) -> Any:
    """The device handle. Any failure here leaves nothing to ask, so it ends the GPU's record;
    NoPermission is "off limits", every other code (GpuIsLost, InsufficientPower, IrqIssue,
    Unknown...) is a lost GPU, as gpustat's InvalidGPU."""
    step = f"nvmlDeviceGetHandleByIndex_v2 (GPU {index})"
    handle, exc = session.call("nvmlDeviceGetHandleByIndex", index, step=step)
    if exc is None:
        return handle
    reason = f"nvmlDeviceGetHandleByIndex_v2: {describe(exc)}"
    raise GpuUnusable(reason, lost=error_code(exc) != NO_PERMISSION)


def _identity(q: DeviceQuery, f: dict[str, Any]) -> None:
    """nvidia-smi --query-gpu=name,uuid,serial,pci.bus_id,pci.device_id,memory.total,
    compute_cap"""
    f["name"] = text(q("nvmlDeviceGetName", field="name"))
    if q.session.read_uuids:  # redacting: read only to map *_VISIBLE_DEVICES, then dropped
        f["uuid"] = text(q("nvmlDeviceGetUUID", field="uuid"))
    if not q.session.redact:  # a serial is not even read when redacting
        f["serial"] = text(q("nvmlDeviceGetSerial", field="serial"))
    pci = q("nvmlDeviceGetPciInfo", field="pci_bus_id", symbol="nvmlDeviceGetPciInfo_v3")
    if pci is not None:
        bus_id = text(getattr(pci, "busId", None)) or text(getattr(pci, "busIdLegacy", None))
        f["pci_bus_id"] = normalize_bus_id(bus_id) if bus_id else None
        f["pci_device_id"] = pci_device_id_text(int(pci.pciDeviceId))
    # v2 leaves out driver-reserved memory from "used" (gpustat#141); total is the same, but
    # v2 is what current drivers answer, v1 what old ones do.
    memory = q(
        "nvmlDeviceGetMemoryInfo",
        MEMORY_V2,
        field="memory_total_bytes",
        symbol="nvmlDeviceGetMemoryInfo_v2",
        fallback="nvmlDeviceGetMemoryInfo",
    )
    f["memory_total_bytes"] = None if memory is None else int(memory.total)
    cc = q("nvmlDeviceGetCudaComputeCapability", field="compute_capability")
    f["compute_capability"] = None if cc is None else f"{cc[0]}.{cc[1]}"
    arch = q("nvmlDeviceGetArchitecture", field="architecture")
    f["architecture"] = None if arch is None else architecture_name(int(arch))
    brand = q("nvmlDeviceGetBrand", field="brand")
    f["brand"] = None if brand is None else brand_name(int(brand))
    f["minor_number"] = q("nvmlDeviceGetMinorNumber", field="minor_number")


def _mig(q: DeviceQuery, f: dict[str, Any]) -> None:
    """nvidia-smi --query-gpu=mig.mode.current,mig.mode.pending; nvidia-smi -L"""
    mode = q("nvmlDeviceGetMigMode", field="mig_mode_current")
    if mode is None:
        return
    f["mig_mode_current"], f["mig_mode_pending"] = bool(mode[0]), bool(mode[1])
    if not mode[0]:
        return
    slots = q("nvmlDeviceGetMaxMigDeviceCount", field="mig_devices") or 0
    devices = []
    for slot in range(int(slots)):
        # An empty slot answers NotFound (None here): skip it, later slots may be in use.
        handle = q("nvmlDeviceGetMigDeviceHandleByIndex", slot, field="mig_devices")
        if handle is not None:
            devices.append(_mig_device(q, slot, handle))
    f["mig_devices"] = tuple(devices)


def _mig_device(q: DeviceQuery, slot: int, handle: Any) -> MigDevice:
    m = DeviceQuery(q.session, q.index, handle, prefix=f"mig_devices[{slot}].")
    attrs = m(
        "nvmlDeviceGetAttributes", field="multiprocessor_count", symbol="nvmlDeviceGetAttributes_v2"
    )
    return MigDevice(
        index=slot,
        uuid=text(m("nvmlDeviceGetUUID", field="uuid")) if q.session.read_uuids else None,
        name=text(m("nvmlDeviceGetName", field="name")),
        gpu_instance_id=m("nvmlDeviceGetGpuInstanceId", field="gpu_instance_id"),
        compute_instance_id=m("nvmlDeviceGetComputeInstanceId", field="compute_instance_id"),
        memory_total_bytes=None if attrs is None else int(attrs.memorySizeMB) * 1024 * 1024,
        multiprocessor_count=None if attrs is None else int(attrs.multiprocessorCount),
    )


def _memory_health(q: DeviceQuery, f: dict[str, Any]) -> None:
    """nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER"""
    ecc = q("nvmlDeviceGetEccMode", field="ecc_mode_current")
    if ecc is not None:
        f["ecc_mode_current"], f["ecc_mode_pending"] = bool(ecc[0]), bool(ecc[1])
        if ecc[0]:  # counters exist only while ECC is on
            f["ecc_uncorrected_volatile"] = q(
                "nvmlDeviceGetTotalEccErrors",
                MEMORY_ERROR_TYPE_UNCORRECTED,
                VOLATILE_ECC,
                field="ecc_uncorrected_volatile",
            )
    # Page retirement is the pre-Ampere mechanism; Ampere+ answers NotSupported and remaps rows.
    pending = q("nvmlDeviceGetRetiredPagesPendingStatus", field="retired_pages_pending")
    if pending is not None:
        f["retired_pages_pending"] = bool(pending)
        sbe = q(
            "nvmlDeviceGetRetiredPages", RETIREMENT_CAUSE_MULTIPLE_SBE, field="retired_pages_count"
        )
        dbe = q("nvmlDeviceGetRetiredPages", RETIREMENT_CAUSE_DBE, field="retired_pages_count")
        if sbe is not None and dbe is not None:
            f["retired_pages_count"] = len(sbe) + len(dbe)
    # NotSupported while MIG is on with instances (NVML docs), then None.
    rows = q("nvmlDeviceGetRemappedRows", field="remapped_rows_pending")
    if rows is not None:
        f["remapped_rows_pending"], f["remapped_rows_failure"] = bool(rows[2]), bool(rows[3])


def _state(q: DeviceQuery, f: dict[str, Any]) -> None:
    """nvidia-smi --query-gpu=persistence_mode,pcie.link.gen.current,pcie.link.gen.max,
    pcie.link.width.current,pcie.link.width.max,clocks_event_reasons.active,
    virtualization_mode,temperature.gpu,power.draw,enforced.power.limit"""
    persistence = q("nvmlDeviceGetPersistenceMode", field="persistence_mode")
    f["persistence_mode"] = None if persistence is None else bool(persistence)
    f["pcie_link_gen_current"] = q(
        "nvmlDeviceGetCurrPcieLinkGeneration", field="pcie_link_gen_current"
    )
    f["pcie_link_gen_max"] = q("nvmlDeviceGetMaxPcieLinkGeneration", field="pcie_link_gen_max")
    f["pcie_link_width_current"] = q(
        "nvmlDeviceGetCurrPcieLinkWidth", field="pcie_link_width_current"
    )
    f["pcie_link_width_max"] = q("nvmlDeviceGetMaxPcieLinkWidth", field="pcie_link_width_max")
    # "ClocksThrottleReasons" was renamed in R535 and will be removed (nvml.h); drivers before
    # R535 only have the old name.
    reasons = q(
        "nvmlDeviceGetCurrentClocksEventReasons",
        field="clock_event_reasons",
        fallback="nvmlDeviceGetCurrentClocksThrottleReasons",
    )
    f["clock_event_reasons"] = None if reasons is None else clock_event_reason_names(int(reasons))
    mode = q("nvmlDeviceGetVirtualizationMode", field="virtualization_mode")
    f["virtualization_mode"] = None if mode is None else virtualization_name(int(mode))
    if f["virtualization_mode"] in ("vgpu", "passthrough"):
        # Only guests hold a vGPU software licence (Virtual GPU Client Licensing User Guide).
        features = q(
            "nvmlDeviceGetGridLicensableFeatures",
            field="vgpu_license",
            symbol="nvmlDeviceGetGridLicensableFeatures_v4",
        )
        f["vgpu_license"] = None if features is None else grid_license(features)
    f["temperature_c"] = q("nvmlDeviceGetTemperature", TEMPERATURE_GPU, field="temperature_c")
    usage = q("nvmlDeviceGetPowerUsage", field="power_usage_w")
    f["power_usage_w"] = None if usage is None else int(usage) / 1000  # milliwatts
    limit = q("nvmlDeviceGetEnforcedPowerLimit", field="power_limit_w")
    f["power_limit_w"] = None if limit is None else int(limit) / 1000
    # Newer drivers only (an older one lacks the function: recorded, left None).
    addressing = q("nvmlDeviceGetAddressingMode", field="addressing_mode")
    f["addressing_mode"] = None if addressing is None else addressing_mode_name(int(addressing))
