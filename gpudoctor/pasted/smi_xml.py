"""`nvidia-smi -q -x`: the XML log, with each GPU's `<mig_devices>` (its MIG devices, or "None"
where it has none: either way the log lists them). Read with a line-oriented tag scanner, not an
XML parser: it never expands entities (a paste with a DOCTYPE or ENTITY declaration is refused
outright, so no "billion laughs"), and a truncated paste still yields every value before the cut.
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.facts import MigDevice
from gpudoctor.pasted.clean import bus_id, integer, mib_bytes, number, on_off, version_text
from gpudoctor.pasted.draft import Draft, put, unknown_value
from gpudoctor.pasted.smi_query import Convert, fabric_state, fabric_status, license_status

NAME = "nvidia-smi -q -x"
DESCRIPTION = "`nvidia-smi -q -x` (XML)"
_ROOT = re.compile(r"<nvidia_smi_log>")
_PROLOGUE = re.compile(r"<\?xml |<!DOCTYPE nvidia_smi_log")

_TAG = re.compile(
    r"<(/?)([A-Za-z_][\w.-]{0,63})((?:[ \t]{1,8}[\w.:-]{1,64}=\"[^\"<>\n]{0,200}\"){0,8})"
    r"[ \t]{0,8}(/?)>"
)
_TEXT_END = re.compile(r"[^<]{0,4096}")
# nvidia-smi writes `<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">`: harmless. An
# internal subset (`[`) or an ENTITY declaration is not nvidia-smi's and is refused.
_UNSAFE = re.compile(r"<!ENTITY|<!DOCTYPE[^>\[]{0,400}\[", re.IGNORECASE)


def starts(text: str) -> list[int]:
    """Where each XML log starts: at its `<?xml`/DOCTYPE prologue when one comes just before the
    root element (so that the prologue is checked too), else at `<nvidia_smi_log>`."""
    out: list[int] = []
    for root in _ROOT.finditer(text):
        begin = max(root.start() - 4096, out[-1] + 1 if out else 0)
        prologue = _PROLOGUE.search(text, begin, root.start())
        out.append(prologue.start() if prologue else root.start())
    return out


# (tag path under <gpu>) -> (GpuFacts field, converter)
GPU_FIELDS: dict[tuple[str, ...], tuple[str, Convert]] = {
    ("product_name",): ("name", str.strip),
    ("product_brand",): ("brand", str.strip),
    ("product_architecture",): ("architecture", lambda v: v.strip().lower()),
    ("persistence_mode",): ("persistence_mode", on_off),
    ("mig_mode", "current_mig"): ("mig_mode_current", on_off),
    ("mig_mode", "pending_mig"): ("mig_mode_pending", on_off),
    ("fb_memory_usage", "total"): ("memory_total_bytes", mib_bytes),
    ("ecc_mode", "current_ecc"): ("ecc_mode_current", on_off),
    ("ecc_mode", "pending_ecc"): ("ecc_mode_pending", on_off),
    ("ecc_errors", "volatile", "dram_uncorrectable"): ("ecc_uncorrected_volatile", integer),
    ("ecc_errors", "volatile", "double_bit", "total"): ("ecc_uncorrected_volatile", integer),
    ("remapped_rows", "remapped_row_pending"): ("remapped_rows_pending", on_off),
    ("remapped_rows", "remapped_row_failure"): ("remapped_rows_failure", on_off),
    ("pci", "pci_bus_id"): ("pci_bus_id", bus_id),
    ("pci", "pci_gpu_link_info", "pcie_gen", "max_link_gen"): ("pcie_link_gen_max", integer),
    ("pci", "pci_gpu_link_info", "pcie_gen", "current_link_gen"): (
        "pcie_link_gen_current",
        integer,
    ),
    ("pci", "pci_gpu_link_info", "link_widths", "max_link_width"): (
        "pcie_link_width_max",
        integer,
    ),
    ("pci", "pci_gpu_link_info", "link_widths", "current_link_width"): (
        "pcie_link_width_current",
        integer,
    ),
    ("temperature", "gpu_temp"): ("temperature_c", integer),
    ("power_readings", "power_draw"): ("power_usage_w", number),
    ("gpu_power_readings", "power_draw"): ("power_usage_w", number),
    ("gpu_power_readings", "average_power_draw"): ("power_usage_w", number),
    ("power_readings", "power_limit"): ("power_limit_w", number),
    ("gpu_power_readings", "current_power_limit"): ("power_limit_w", number),
    ("minor_number",): ("minor_number", integer),
    ("fabric", "state"): ("_fabric_state", fabric_state),
    ("fabric", "status"): ("_fabric_status", fabric_status),
    ("vgpu_software_licensed_product", "licensed_product_name"): ("_license_product", str.strip),
    ("vgpu_software_licensed_product", "license_status"): ("_license_status", license_status),
}

_MAX_DEPTH = 16

_VIRT = {"None": "none", "Pass-Through": "passthrough", "VGPU": "vgpu", "Host VGPU": "host_vgpu"}


def parse(block: str, draft: Draft) -> None:
    if _UNSAFE.search(block):
        draft.notes.append(
            "the nvidia-smi XML holds a DOCTYPE or ENTITY declaration: it was not read"
        )
        return
    draft.section(NAME)
    put(draft.nvml, "status", "ok")
    path: list[str] = []
    gpu: dict[str, Any] | None = None
    mig: dict[int, list[dict[str, int]]] = {}  # GPU index -> its <mig_device> values
    pos, count, closed = 0, 0, False
    for tag in _TAG.finditer(block):
        closing, name = tag.group(1) == "/", tag.group(2)
        if tag.group(4):  # <empty/>
            continue
        if closing:
            while path and path.pop() != name:
                pass  # tolerate a missing close tag
            if name == "nvidia_smi_log":
                closed = True
                break
            continue
        path.append(name)
        if len(path) > _MAX_DEPTH:  # nvidia-smi nests 6 deep; deeper is not its log
            draft.notes.append("the nvidia-smi XML nests too deep: read up to there")
            closed = True
            break
        if path[-2:] == ["nvidia_smi_log", "gpu"]:
            gpu, count = draft.gpu(count), count + 1
            put(gpu, "pci_bus_id", bus_id(_attribute(tag.group(3), "id")))
            continue
        if gpu is not None and _mig_tag(path, gpu, mig, draft):
            continue
        text = _TEXT_END.match(block, tag.end())
        value = text.group(0).strip() if text else ""
        if value and not unknown_value(value):
            _value(path, value, gpu, mig, draft)
            pos = tag.end()
    if not closed:
        draft.notes.append(
            f"the nvidia-smi XML is cut short (after offset {pos}); read up to there"
        )
    put(draft.nvml, "device_count", count or None)
    for index, devices in mig.items():
        put(draft.gpu(index), "mig_mode_current", True)
        put(
            draft.gpu(index),
            "mig_devices",
            tuple(
                MigDevice(
                    index=values.get("index", n),
                    gpu_instance_id=values.get("gpu_instance_id"),
                    compute_instance_id=values.get("compute_instance_id"),
                    memory_total_bytes=values.get("memory_total_bytes"),
                )
                for n, values in enumerate(devices)
            ),
        )


def _value(
    path: list[str],
    value: str,
    gpu: dict[str, Any] | None,
    mig: dict[int, list[dict[str, int]]],
    draft: Draft,
) -> None:
    """A tag's value: a MIG device's own (under <mig_device>), or the GPU's or the log's."""
    if gpu is not None and mig.get(gpu["index"]) and "mig_device" in path:
        _mig_value(path[path.index("mig_device") + 1 :], value, mig[gpu["index"]][-1])
    else:
        _record(path, value, gpu, draft)


def _mig_tag(
    path: list[str], gpu: dict[str, Any], mig: dict[int, list[dict[str, int]]], draft: Draft
) -> bool:
    """<mig_devices> says the log lists the GPU's MIG devices; each <mig_device> starts one."""
    if path[-2:] == ["gpu", "mig_devices"]:
        draft.named.append(("mig-listing", 0))
    elif path[-3:] == ["gpu", "mig_devices", "mig_device"]:
        mig.setdefault(gpu["index"], []).append({})
        return True
    return False


# Under <mig_device>: its index, GPU and compute instance and memory (the MIG device's own,
# readable where the parent GPU's memory says "Insufficient Permissions").
_MIG_FIELDS: dict[tuple[str, ...], str] = {
    ("index",): "index",
    ("gpu_instance_id",): "gpu_instance_id",
    ("compute_instance_id",): "compute_instance_id",
}


def _mig_value(under: list[str], value: str, device: dict[str, int]) -> None:
    key = _MIG_FIELDS.get(tuple(under))
    number_value = integer(value) if key else None
    if key and number_value is not None:
        device.setdefault(key, number_value)
    elif tuple(under) == ("fb_memory_usage", "total"):
        memory = mib_bytes(value)
        if memory is not None:
            device.setdefault("memory_total_bytes", memory)


def _attribute(attrs: str, key: str) -> str | None:
    found = re.search(rf'{key}="([^"]*)"', attrs)
    return found.group(1) if found else None


def _record(path: list[str], value: str, gpu: dict[str, Any] | None, draft: Draft) -> None:
    if path[-2:] == ["nvidia_smi_log", "driver_version"]:
        put(draft.nvml, "driver_version", value)
    elif path[-2:] == ["nvidia_smi_log", "cuda_version"]:
        put(draft.nvml, "cuda_driver_version", version_text(value))
    elif gpu is not None and "gpu" in path:
        under = tuple(path[path.index("gpu") + 1 :])
        if under == ("gpu_virtualization_mode", "virtualization_mode"):
            put(gpu, "virtualization_mode", _VIRT.get(value))
            return
        target = GPU_FIELDS.get(under)
        if target:
            put(gpu, target[0], target[1](value))
