"""`nvidia-smi -q`: indented `Key : Value` lines under `==============NVSMI LOG==============`,
one `GPU 00000000:3B:00.0` heading per GPU. Each value is found by its path of headings (so
"Current" under "MIG Mode" differs from "Current" under "Ecc Mode"); the table below maps the
paths the checks use to GpuFacts fields. Values nvidia-smi cannot read (N/A, [Not Supported])
stay unknown.

A GPU's "MIG Devices" block lists its MIG devices (one "MIG Device" heading each, with its
Index, GPU Instance ID, Compute Instance ID, "Device Attributes" / "Shared" counts and its own
"FB Memory Usage"), or says "MIG Devices : None": either way the log lists the GPU's MIG
devices (the `mig-listing` word), as the XML form's <mig_devices> does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gpudoctor.facts import MigDevice
from gpudoctor.pasted.clean import bus_id, integer, mib_bytes, number, on_off, version_text
from gpudoctor.pasted.draft import Draft, failed_reading, mark_failed_readings, put, unknown_value
from gpudoctor.pasted.scan import line_starts_with

NAME = "nvidia-smi -q"
DESCRIPTION = "`nvidia-smi -q`"


def starts(text: str) -> list[int]:
    """The `==============NVSMI LOG==============` line of each log."""
    return line_starts_with(text, "NVSMI LOG", " \t=")


_LINE = re.compile(r"^([ \t]*)([^:\n]{1,80}?)[ \t]*(?::[ \t]*(.*))?$")
_GPU = re.compile(r"^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)$")


def _gen(text: str) -> int | None:
    return integer(text)


def _width(text: str) -> int | None:
    return integer(text)  # "16x"


def _virt(text: str) -> str | None:
    value = text.strip().lower().replace(" ", "_")
    return _VIRT.get(value)


_VIRT = {
    "none": "none",
    "pass-through": "passthrough",
    "passthrough": "passthrough",
    "vgpu": "vgpu",
    "host_vgpu": "host_vgpu",
    "host_vsga": "host_vsga",
}


def _addressing(text: str) -> str | None:
    """nvmlDeviceGetAddressingMode as nvidia-smi -q prints it, in the probe's names
    (probes/nvml_decode.ADDRESSING_MODES); "N/A" (a GPU or driver without it) is unknown."""
    value = text.strip().lower()
    return value if value in ("ats", "hmm", "none") else None


def fabric_state(text: str) -> str | None:
    """nvidia-smi's "Not Started" / "In Progress" / "Completed" as FabricFacts.state."""
    value = text.strip().lower().replace(" ", "_")
    return value if value in ("not_started", "in_progress", "completed", "not_supported") else None


def fabric_status(text: str) -> int | None:
    """ "Success" is NVML_SUCCESS (0); nvidia-smi prints other results as text whose number it
    does not show, so those stay unknown."""
    return 0 if text.strip().lower() == "success" else None


_LICENSE = re.compile(
    r"^\s*(licensed|unlicensed)\s*(?:\(\s*(restricted|unrestricted|expiry:\s*([^)]*))\s*\))?\s*$",
    re.IGNORECASE,
)
_EXPIRY = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{1,2}):(\d{1,2})\s*(?:GMT|UTC)?$", re.I
)


def license_status(text: str) -> tuple[str, str | None] | None:
    """The "License Status" line of the "vGPU Software Licensed Product" block: "Licensed
    (Expiry: 2026-7-7 16:1:44 GMT)", "Licensed", "Unlicensed (Restricted)", "Unlicensed
    (Unrestricted)" -> (VgpuLicense.state, ISO expiry or None); None when not one of those."""
    found = _LICENSE.match(text)
    if not found:
        return None
    word, qualifier, expiry = found.group(1).lower(), (found.group(2) or "").lower(), found.group(3)
    if word == "unlicensed":
        return (f"unlicensed_{qualifier}" if qualifier else "unlicensed"), None
    if expiry is None:
        return "licensed", None
    moment = _EXPIRY.match(expiry.strip())
    if not moment:
        return "licensed", None
    year, month, day, hour, minute, second = (int(g) for g in moment.groups())
    return "licensed", f"{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"


Convert = Callable[[str], Any]

# (path under the GPU heading, lower case) -> (GpuFacts field, converter)
GPU_FIELDS: dict[tuple[str, ...], tuple[str, Convert]] = {
    ("product name",): ("name", str.strip),
    ("product brand",): ("brand", str.strip),
    ("product architecture",): ("architecture", lambda v: v.strip().lower()),
    ("persistence mode",): ("persistence_mode", on_off),
    # R550+: "Addressing Mode : ATS" (GH200/GB200 over NVLink-C2C), "HMM", "None", "N/A"
    ("addressing mode",): ("addressing_mode", _addressing),
    ("mig mode", "current"): ("mig_mode_current", on_off),
    ("mig mode", "pending"): ("mig_mode_pending", on_off),
    ("fb memory usage", "total"): ("memory_total_bytes", mib_bytes),
    ("ecc mode", "current"): ("ecc_mode_current", on_off),
    ("ecc mode", "pending"): ("ecc_mode_pending", on_off),
    ("ecc errors", "volatile", "dram uncorrectable"): ("ecc_uncorrected_volatile", integer),
    ("ecc errors", "volatile", "double bit", "total"): ("ecc_uncorrected_volatile", integer),
    ("remapped rows", "pending"): ("remapped_rows_pending", on_off),
    ("remapped rows", "remapping failure occurred"): ("remapped_rows_failure", on_off),
    ("retired pages", "pending page blacklist"): ("retired_pages_pending", on_off),
    ("retired pages", "pending page retirement"): ("retired_pages_pending", on_off),
    ("pci", "bus id"): ("pci_bus_id", bus_id),
    ("pci", "gpu link info", "pcie generation", "max"): ("pcie_link_gen_max", _gen),
    ("pci", "gpu link info", "pcie generation", "current"): ("pcie_link_gen_current", _gen),
    ("pci", "gpu link info", "link width", "max"): ("pcie_link_width_max", _width),
    ("pci", "gpu link info", "link width", "current"): ("pcie_link_width_current", _width),
    ("gpu virtualization mode", "virtualization mode"): ("virtualization_mode", _virt),
    ("temperature", "gpu current temp"): ("temperature_c", integer),
    ("power readings", "power draw"): ("power_usage_w", number),
    ("gpu power readings", "power draw"): ("power_usage_w", number),
    ("gpu power readings", "average power draw"): ("power_usage_w", number),
    ("power readings", "power limit"): ("power_limit_w", number),
    ("gpu power readings", "current power limit"): ("power_limit_w", number),
    ("minor number",): ("minor_number", integer),
    # Read into GpuFacts.fabric by build.py (the fabric manager's registration, R525+).
    ("fabric", "state"): ("_fabric_state", fabric_state),
    ("fabric", "status"): ("_fabric_status", fabric_status),
    # Read into GpuFacts.vgpu_license by build.py (a vGPU guest's licence).
    ("vgpu software licensed product", "product name"): ("_license_product", str.strip),
    ("vgpu software licensed product", "license status"): ("_license_status", license_status),
}


# "Clocks Event Reasons" (R535+; "Clocks Throttle Reasons" before): each reason "Active" or
# "Not Active", under the names NVML's bits have (nvml_decode.CLOCK_EVENT_REASONS).
_REASON_HEADINGS = ("clocks event reasons", "clocks throttle reasons")
_REASONS = {
    "idle": "gpu_idle",
    "applications clocks setting": "applications_clocks_setting",
    "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown",
    "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power brake slowdown": "hw_power_brake_slowdown",
    "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
    "display clock setting": "display_clock_setting",
}


def _clock_event(gpu: dict[str, Any], key: str, value: str) -> None:
    name = _REASONS.get(key)
    state = value.strip().lower()
    if name is None or state not in ("active", "not active"):
        return
    active = gpu.setdefault("_reasons", [])
    if state == "active" and name not in active:
        active.append(name)


# Under a "MIG Device" heading: (path below it, lower case) -> MigDevice field
_MIG_FIELDS: dict[tuple[str, ...], tuple[str, Convert]] = {
    ("index",): ("index", integer),
    ("gpu instance id",): ("gpu_instance_id", integer),
    ("compute instance id",): ("compute_instance_id", integer),
    ("device attributes", "shared", "multiprocessor count"): ("multiprocessor_count", integer),
    ("fb memory usage", "total"): ("memory_total_bytes", mib_bytes),
}
_MIG_DEVICES = ("mig devices",)
_MIG_DEVICE = ("mig devices", "mig device")


def _failed_value(key: str, value: str, gpu: dict[str, Any]) -> bool:
    """A value NVML failed to read ("[Unknown Error]"), kept to judge the GPU by at the end."""
    if not failed_reading(value):
        return False
    gpu.setdefault("_failed", []).append((key.strip().lower(), value))
    return True


def _mig_heading(path: tuple[str, ...], gpu: dict[str, Any], draft: Draft) -> None:
    """ "MIG Devices" (the GPU's list of MIG devices) and each "MIG Device" heading under it."""
    if path == _MIG_DEVICES and not any(word == "mig-listing" for word, _ in draft.named):
        draft.named.append(("mig-listing", 0))
    elif path == _MIG_DEVICE:
        gpu.setdefault("_mig", []).append({})


def _mig_value(path: tuple[str, ...], value: str, gpu: dict[str, Any], draft: Draft) -> bool:
    """A value in the GPU's "MIG Devices" block (True: it was one), read into its MIG device."""
    if path[: len(_MIG_DEVICES)] != _MIG_DEVICES:
        return False
    if path == _MIG_DEVICES:  # "MIG Devices : None": listed, and none
        _mig_heading(path, gpu, draft)
        return True
    devices = gpu.get("_mig")
    target = _MIG_FIELDS.get(path[len(_MIG_DEVICE) :])
    if path[: len(_MIG_DEVICE)] == _MIG_DEVICE and devices and target:
        converted = None if unknown_value(value) else target[1](value)
        if converted is not None:
            devices[-1].setdefault(target[0], converted)
    return True


def _mig_devices(gpu: dict[str, Any]) -> None:
    """The MIG devices read under the GPU: it has MIG on, with those devices."""
    devices = gpu.pop("_mig", None)
    if not devices:
        return
    put(gpu, "mig_mode_current", True)
    put(
        gpu,
        "mig_devices",
        tuple(MigDevice(**{"index": n, **values}) for n, values in enumerate(devices)),
    )


def parse(block: str, draft: Draft) -> None:
    draft.section(NAME)
    put(draft.nvml, "status", "ok")  # nvidia-smi printed its log, so NVML initialised
    stack: list[tuple[int, str]] = []  # (indent, heading)
    gpu: dict[str, Any] | None = None
    gpu_indent = 0
    for raw in block.splitlines()[1:4000]:
        heading = _GPU.match(raw.strip())  # before _LINE: the bus id holds colons
        if heading:
            gpu = draft.gpu(len([g for g in draft.gpus.values() if "_q" in g]))
            gpu["_q"] = True
            put(gpu, "pci_bus_id", bus_id(heading.group(1)))
            stack, gpu_indent = [], len(raw) - len(raw.lstrip())
            continue
        found = _LINE.match(raw) if len(raw) < 300 else None
        if not found or not found.group(2).strip():
            continue
        indent, key, value = (
            len(found.group(1).expandtabs()),
            found.group(2).strip(),
            found.group(3),
        )
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if value is None:
            stack.append((indent, key.lower()))
            if gpu is not None and indent > gpu_indent:
                _mig_heading(tuple(h for _, h in stack), gpu, draft)
            continue
        if gpu is None or indent <= gpu_indent:
            _top_level(key, value, draft)
            continue
        path = (*(h for _, h in stack), key.lower())
        if len(path) == 2 and path[0] in _REASON_HEADINGS:
            _clock_event(gpu, path[1], value)
            continue
        if _failed_value(key, value, gpu) or _mig_value(path, value, gpu, draft):
            continue
        target = GPU_FIELDS.get(path)
        if target and not unknown_value(value):
            put(gpu, target[0], target[1](value))
    for g in draft.gpus.values():
        g.pop("_q", None)
        mark_failed_readings(g, g.pop("_failed", []), "nvidia-smi -q")
        _mig_devices(g)
        active = g.pop("_reasons", None)
        if active is not None:
            put(g, "clock_event_reasons", tuple(active))
    put(draft.nvml, "device_count", len(draft.gpus) or None)


def _top_level(key: str, value: str, draft: Draft) -> None:
    key = key.lower()
    if unknown_value(value):
        return
    # from R610 the names are "KMD Version" and "CUDA UMD Version" (the old ones deprecated)
    if key in ("driver version", "kmd version"):
        put(draft.nvml, "driver_version", value.strip())
    elif key in ("cuda version", "cuda umd version"):
        put(draft.nvml, "cuda_driver_version", version_text(value))
    elif key == "attached gpus":
        put(draft.nvml, "device_count", integer(value))
