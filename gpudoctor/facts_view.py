"""Questions every layer asks of HostFacts (which GPUs are live, which driver runs, is the
driver broken): pure functions of the facts, shared by the checks and the compatibility model."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts, PciDevice

NVIDIA_VENDOR = "0x10de"  # PCI vendor id

# A Jetson's GPU as the matrix lists it ("Jetson AGX Orin") or as CUDA names the integrated GPU
# to programs on it: torch's get_device_name and deviceQuery ("Orin", "Xavier", "NVIDIA Tegra
# X1" on a Nano or TX1, "NVIDIA Tegra X2"), collect_env's "Orin (nvgpu)", and the chip names of
# L4T's nvgpu driver (gm20b: TX1/Nano, gp10b: TX2, gv11b: Xavier, ga10b: Orin) that OpenCL,
# Vulkan and some tools print. Every Jetson module is an Arm (aarch64) board.
JETSON_GPU_NAMES = (
    "jetson",
    "nvidia jetson",
    "orin",
    "xavier",
    "nvidia tegra",
    "tegra",
    "gm20b",
    "gp10b",
    "gv11b",
    "ga10b",
)


def jetson_gpu_name(name: str | None) -> bool:
    """The name is a Jetson's integrated GPU (JETSON_GPU_NAMES)."""
    return bool(name) and str(name).strip().lower().startswith(JETSON_GPU_NAMES)


def nvidia_pci_gpus(facts: HostFacts) -> list[PciDevice]:
    """Physical NVIDIA GPUs on the PCI bus (not NVSwitches, audio functions or SR-IOV VFs)."""
    return [
        d
        for d in facts.kernel.pci_devices
        if d.vendor_id.lower() == NVIDIA_VENDOR and d.kind == "gpu" and not d.is_virtual_function
    ]


def nvml_ok(facts: HostFacts) -> bool:
    return facts.nvml.status == "ok"


def live_gpus(facts: HostFacts) -> list[GpuFacts]:
    return [g for g in facts.nvml.gpus if not g.lost]


def has_gpu(facts: HostFacts) -> bool:
    """An NVIDIA GPU is here: NVML sees one, or the PCI bus has one (driver working or not)."""
    return bool(facts.nvml.gpus) or bool(nvidia_pci_gpus(facts))


def passthrough_only(facts: HostFacts) -> bool:
    """Every NVIDIA GPU is bound to vfio-pci/pci-stub: a hypervisor keeping them for its VMs,
    where no NVIDIA driver is expected."""
    pci = nvidia_pci_gpus(facts)
    return bool(pci) and not facts.nvml.gpus and all(d.driver in _STUBS for d in pci)


_STUBS = ("vfio-pci", "pci-stub")
_NO_DRIVER = ("library_not_found", "driver_not_loaded", "lib_rm_version_mismatch")


def driver_broken(facts: HostFacts) -> bool:
    """A GPU is here but the driver does not work: the driver area says why, so checks that need
    a driver answer n/a ("see the driver checks") instead of piling up unknowns."""
    return has_gpu(facts) and (facts.nvml.status in _NO_DRIVER or passthrough_only(facts))


def driver_version(facts: HostFacts) -> str | None:
    """The user-space driver NVML reports, else the loaded kernel module's version."""
    return facts.nvml.driver_version or facts.kernel.nvidia_module_version
