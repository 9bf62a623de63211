"""Pure translations of raw NVML values into the forms HostFacts stores.

No NVML here: the numbers and strings come in, text comes out, so each rule is unit-tested
without a library. The integer tables mirror the constants of nvidia-ml-py 13.x (pynvml.py,
which copies them from nvml.h).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from gpudoctor.facts import VgpuLicense

# NVML_DEVICE_ARCH_*; NVML_DEVICE_ARCH_UNKNOWN (0xffffffff) maps to None.
ARCHITECTURES: dict[int, str] = {
    2: "kepler",
    3: "maxwell",
    4: "pascal",
    5: "volta",
    6: "turing",
    7: "ampere",
    8: "ada",
    9: "hopper",
    10: "blackwell",
    11: "dla",
    12: "dla2",
    13: "rubin",
    15: "npu3",
}
ARCH_UNKNOWN = 0xFFFFFFFF

# NVML_BRAND_*; deprecated aliases (VGAMING = CLOUD_GAMING) share a value, so the table is static.
BRANDS: dict[int, str] = {
    0: "unknown",
    1: "quadro",
    2: "tesla",
    3: "nvs",
    4: "grid",
    5: "geforce",
    6: "titan",
    7: "nvidia_vapps",
    8: "nvidia_vpc",
    9: "nvidia_vcs",
    10: "nvidia_vws",
    11: "nvidia_cloud_gaming",
    12: "quadro_rtx",
    13: "nvidia_rtx",
    14: "nvidia",
    15: "geforce_rtx",
    16: "titan_rtx",
    17: "nvidia_dla",
    18: "nvidia_vgamedev",
    19: "nvidia_npu",
}

# nvmlClocksEventReason* bits (the older nvmlClocksThrottleReason* share them; BoardLimit and
# Reliability exist only under the old name).
CLOCK_EVENT_REASONS: tuple[tuple[int, str], ...] = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
    (0x200, "board_limit"),
    (0x400, "reliability"),
)

# NVML_GPU_VIRTUALIZATION_MODE_*
VIRTUALIZATION_MODES: dict[int, str] = {
    0: "none",
    1: "passthrough",
    2: "vgpu",
    3: "host_vgpu",
    4: "host_vsga",
}

_BUS_ID = re.compile(r"^([0-9a-fA-F]+):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$")
_LIBRARY_VERSION = re.compile(r"libnvidia-ml\.so\.(\d+\.\d+(?:\.\d+)*)$")


def cuda_version_text(value: int) -> str:
    """12040 -> "12.4", the encoding of nvmlSystemGetCudaDriverVersion (and cuDriverGetVersion)."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def normalize_bus_id(bus_id: str) -> str:
    """NVML's "00000000:3B:00.0" in the sysfs form "0000:3b:00.0" (domain printed as %04x,
    like the kernel does), so that it joins with /sys/bus/pci/devices. Unparsable input is
    returned lower-cased rather than dropped."""
    match = _BUS_ID.match(bus_id.strip())
    if match is None:
        return bus_id.strip().lower()
    domain, bus, device, function = match.groups()
    return f"{int(domain, 16):04x}:{int(bus, 16):02x}:{int(device, 16):02x}.{function}"


def pci_device_id_text(pci_device_id: int) -> str:
    """NVML packs device << 16 | vendor; "0x2330" for an H100 SXM."""
    return f"0x{(pci_device_id >> 16) & 0xFFFF:04x}"


def architecture_name(value: int) -> str | None:
    """Lower-case NVML architecture name; an id newer than this table keeps its number
    ("arch_14") so that the fact is not lost; NVML's own "unknown" is None."""
    if value == ARCH_UNKNOWN:
        return None
    return ARCHITECTURES.get(value, f"arch_{value}")


def brand_name(value: int) -> str:
    return BRANDS.get(value, f"brand_{value}")


def clock_event_reason_names(mask: int) -> tuple[str, ...]:
    """Active reasons, in bit order; bits this table does not know keep their value."""
    names = [name for bit, name in CLOCK_EVENT_REASONS if mask & bit]
    known = 0
    for bit, _ in CLOCK_EVENT_REASONS:
        known |= bit
    rest = mask & ~known
    bit = 1
    while rest:
        if rest & bit:
            names.append(f"unknown_{bit:#x}")
            rest &= ~bit
        bit <<= 1
    return tuple(names)


# NVML_DEVICE_ADDRESSING_MODE_* (nvmlDeviceGetAddressingMode): how the GPU reaches system
# memory. ATS (address translation services) is the coherent NVLink-C2C mode of Grace systems;
# HMM is the kernel's heterogeneous memory management on PCIe systems.
ADDRESSING_MODES: dict[int, str] = {0: "none", 1: "hmm", 2: "ats"}


def addressing_mode_name(value: int) -> str:
    return ADDRESSING_MODES.get(value, f"mode_{value}")


def virtualization_name(value: int) -> str:
    return VIRTUALIZATION_MODES.get(value, f"mode_{value}")


def library_version_from_path(path: str) -> str | None:
    """The version in ".../libnvidia-ml.so.550.90.07" (the driver installs the real file
    under its full version and points libnvidia-ml.so.1 at it)."""
    match = _LIBRARY_VERSION.search(path)
    return match.group(1) if match else None


def library_from_maps(maps_text: str) -> str | None:
    """The path of the libnvidia-ml mapped into this process, from /proc/self/maps text."""
    for line in maps_text.splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and "libnvidia-ml" in parts[5].rsplit("/", 1)[-1]:
            return parts[5].removesuffix(" (deleted)")
    return None


def text(value: object) -> str | None:
    """Strings from the binding: `str` in nvidia-ml-py >= 11.5, `bytes` in older ones."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


# NVML_GRID_LICENSE_EXPIRY_* (nvml.h): the status byte of nvmlGridLicenseExpiry_t.
GRID_EXPIRY_VALID = 2
GRID_EXPIRY_PERMANENT = 4


def grid_license(features: Any) -> VgpuLicense | None:
    """nvmlGridLicensableFeatures_t (v4) -> the guest's licence; None when the system does not
    support vGPU software licensing (isGridLicenseSupported == 0). The feature that is enabled
    is the one the guest runs (its productName, featureState non-zero when licensed, nvml.h)."""
    if not int(getattr(features, "isGridLicenseSupported", 0)):
        return None
    count = min(int(features.licensableFeaturesCount), len(features.gridLicensableFeatures))
    found = [features.gridLicensableFeatures[i] for i in range(count)]
    if not found:
        return VgpuLicense(state="unknown")
    feature = next((f for f in found if int(f.featureEnabled)), found[0])
    product = _c_text(feature.productName)
    return VgpuLicense(
        state="licensed" if int(feature.featureState) else "unlicensed",
        product=product,
        expiry=_grid_expiry(feature.licenseExpiry),
    )


def _c_text(raw: Any) -> str | None:
    value = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")
    value = value.split("\0", 1)[0].strip()
    return value or None


def _grid_expiry(expiry: Any) -> str | None:
    status = int(expiry.status)
    if status == GRID_EXPIRY_PERMANENT:
        return "permanent"
    if status != GRID_EXPIRY_VALID:
        return None
    try:
        moment = datetime(
            int(expiry.year),
            int(expiry.month),
            int(expiry.day),
            int(expiry.hour),
            int(expiry.min),
            int(expiry.sec),
            tzinfo=timezone.utc,
        )
    except ValueError:  # a date NVML made up: unknown rather than wrong
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
