"""AMD GPU and ROCm facts (part of HostFacts): what sysfs, the KFD topology, /dev and /opt/rocm
show, read without any ROCm tool installed (probes/amd.py).

Unknown values are None, as everywhere in HostFacts; every field has a default so that a
snapshot written before these facts existed still loads (it reads as "no AMD GPU seen").
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.frozen import Frozen

AMD_VENDOR = "0x1002"  # PCI vendor id


@dataclass(frozen=True, eq=False, repr=False)
class AmdPciGpu(Frozen):
    """A display-class AMD function under /sys/class/drm/cardN/device."""

    card: str  # "card1"
    address: str | None = None  # "0000:0c:00.0"
    device_id: str | None = None  # "0x74a1"
    revision: str | None = None  # "0x00"
    driver: str | None = None  # bound kernel driver: "amdgpu", "vfio-pci"; None = unbound
    # amdgpu RAS counters of the memory controller (device/ras/umc_err_count: "ue: N", "ce: N");
    # None where the GPU has no RAS (Radeon) or the file could not be read.
    ecc_uncorrectable: int | None = None
    ecc_correctable: int | None = None
    compute_partition: str | None = None  # device/current_compute_partition: SPX, DPX, CPX, ...


@dataclass(frozen=True, eq=False, repr=False)
class KfdNode(Frozen):
    """One node of /sys/class/kfd/kfd/topology/nodes: a GPU agent (one die of a multi-die card,
    or one partition) or, with gfx_target_version 0, a CPU."""

    node: int
    gfx_target_version: int  # 90402; 0 = CPU node
    gfx_target: str | None = None  # "gfx942", decoded from gfx_target_version
    device_id: int | None = None  # PCI device id, decimal as KFD writes it (29857 = 0x74a1)
    location_id: int | None = None  # (bus << 8) | devfn
    drm_render_minor: int | None = None  # /dev/dri/renderD<minor>
    simd_count: int | None = None

    @property
    def is_gpu(self) -> bool:
        return self.gfx_target_version != 0


@dataclass(frozen=True, eq=False, repr=False)
class AmdDeviceNode(Frozen):
    """/dev/kfd or a /dev/dri/renderD* node: who may open it, and may this user."""

    path: str
    mode: str | None = None  # permission bits, octal: "0660"
    uid: int | None = None
    gid: int | None = None
    group: str | None = None  # name of gid from <root>/etc/group
    accessible: bool | None = None  # read and write for the probing user (uid, groups)


@dataclass(frozen=True, eq=False, repr=False)
class AmdFacts(Frozen):
    pci_gpus: tuple[AmdPciGpu, ...] = ()
    kfd_present: bool | None = None  # /sys/class/kfd/kfd/topology exists
    kfd_nodes: tuple[KfdNode, ...] = ()
    amdgpu_loaded: bool | None = None  # /sys/module/amdgpu
    amdgpu_version: str | None = None  # /sys/module/amdgpu/version (amdgpu-dkms only)
    rocm_path: str | None = None  # "/opt/rocm" when its .info/version reads
    rocm_version: str | None = None  # "6.3.1-48" as .info/version holds it
    rocm_installs: tuple[str, ...] = ()  # /opt/rocm-6.3.1, ...
    device_nodes: tuple[AmdDeviceNode, ...] = ()
    user_uid: int | None = None
    user_groups: tuple[int, ...] = ()  # the probing process's groups (os.getgroups + egid)
    hsa_override_gfx_version: str | None = None
    hip_visible_devices: str | None = None
    rocr_visible_devices: str | None = None
    ld_library_path_rocm: tuple[str, ...] = ()  # LD_LIBRARY_PATH entries inside a ROCm tree
    cdi_amd_devices: tuple[str, ...] = ()  # "amd.com/gpu=0", ... from /etc/cdi, /var/run/cdi
    # The optional amdsmi bindings: "ok", "not_installed", "import_failed", "init_failed",
    # or "not_run"; `amdsmi_error` says why when not ok.
    # From a pasted report only (collect_env): the HIP runtime and MIOpen torch loaded.
    hip_runtime_version: str | None = None
    miopen_version: str | None = None
    amdsmi_status: str = "not_run"
    amdsmi_error: str | None = None
    amdsmi_version: str | None = None

    @property
    def gpu_nodes(self) -> tuple[KfdNode, ...]:
        return tuple(n for n in self.kfd_nodes if n.is_gpu)

    @property
    def seen(self) -> bool:
        """An AMD GPU is here: on the PCI bus (DRM) or in the KFD topology."""
        return bool(self.pci_gpus) or bool(self.gpu_nodes)


def gfx_name(version: int) -> str | None:
    """KFD's gfx_target_version as an LLVM target: major `v // 10000` in decimal, minor
    `(v // 100) % 100` and stepping `v % 100` each one hex digit (90010 -> gfx90a,
    90402 -> gfx942, 110000 -> gfx1100). 0 (a CPU node) and values no target can have -> None."""
    if version <= 0:
        return None
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    if minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def gfx_version(name: str) -> int | None:
    """The inverse of gfx_name: "gfx942" -> 90402, "gfx90a" -> 90010, "gfx1100" -> 110000."""
    digits = name[3:] if name.startswith("gfx") else ""
    if len(digits) < 3 or not digits[:-2].isdecimal():
        return None
    try:
        minor, stepping = int(digits[-2], 16), int(digits[-1], 16)
    except ValueError:
        return None
    return int(digits[:-2]) * 10000 + minor * 100 + stepping
