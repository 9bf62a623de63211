"""HostFacts parts for multi-GPU and multi-node readiness: NVLink, fabric, P2P and topology (from
NVML), and the host around the GPUs (HCAs, PCIe ACS, IOMMU groups, NUMA, /dev/shm, memlock, NCCL
environment, XID history), read from sysfs, procfs and the kernel log.

Kept apart from facts.py so that the snapshot's core stays short; facts.py imports these and every
field has a default, so a snapshot written before they existed still loads.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.frozen import Frozen

# --- NVML ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class NvLinkFacts(Frozen):
    """One NVLink of a GPU (nvidia-smi nvlink -s / -e). Counters are totals since the driver
    loaded; None = the GPU or driver does not report it (Blackwell moved them to field values)."""

    link: int
    active: bool | None = None
    version: str | None = None  # NVLink generation: "4.0" (Hopper), "5.0" (Blackwell)
    remote_type: str | None = None  # gpu, switch, ibmnpu, unknown
    remote_pci_bus_id: str | None = None  # sysfs form; the peer GPU or the NVSwitch
    replay_errors: int | None = None
    recovery_errors: int | None = None
    crc_flit_errors: int | None = None
    crc_data_errors: int | None = None


@dataclass(frozen=True, eq=False, repr=False)
class FabricFacts(Frozen):
    """nvmlDeviceGetGpuFabricInfo(V): registration of the GPU with the NVLink fabric, which the
    fabric manager performs on NVSwitch systems. `state`: not_supported, not_started,
    in_progress, completed; `status`: the nvmlReturn_t of the registration (0 = success)."""

    state: str | None = None
    status: int | None = None
    health_mask: int | None = None  # V only; bits per NVML_GPU_FABRIC_HEALTH_MASK_*


@dataclass(frozen=True, eq=False, repr=False)
class GpuPairFacts(Frozen):
    """Two GPUs (by NVML index, a < b): topology level and P2P status, as nvidia-smi topo -m and
    topo -p2p show them. Topology: internal, single (PIX), multiple (PXB), hostbridge (PHB),
    node (NODE), system (SYS). P2P: ok, chipset_not_supported, gpu_not_supported,
    topology_not_supported, disabled_by_regkey, not_supported, unknown."""

    gpu_a: int
    gpu_b: int
    topology: str | None = None
    p2p_read: str | None = None
    p2p_write: str | None = None
    p2p_nvlink: str | None = None
    p2p_atomics: str | None = None


# --- host around the GPUs -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class IbPort(Frozen):
    """/sys/class/infiniband/<device>/ports/<port>: an InfiniBand or RoCE port. GUIDs are never
    read (they identify the machine)."""

    device: str  # "mlx5_0"
    port: int
    state: str | None = None  # "ACTIVE", "DOWN", "INIT", "ARMED"
    phys_state: str | None = None  # "LinkUp", "Polling", "Disabled"
    rate: str | None = None  # "400 Gb/sec (4X NDR)"
    link_layer: str | None = None  # "InfiniBand" or "Ethernet" (RoCE)


@dataclass(frozen=True, eq=False, repr=False)
class PciBridgeAcs(Frozen):
    """A PCIe bridge above a GPU and its Access Control Services control register. `redirect`:
    P2P Request or Completion Redirect set, which sends peer traffic up to the root complex.
    None when the register could not be read (extended config space needs root)."""

    address: str  # the bridge, "0000:17:02.0"
    gpu_pci_bus_id: str  # the GPU below it
    has_acs: bool | None = None  # the bridge has the ACS capability
    control: int | None = None  # ACS Control register value
    redirect: bool | None = None


@dataclass(frozen=True, eq=False, repr=False)
class GpuLocality(Frozen):
    """Where a GPU sits: NUMA node, the CPUs close to it, its IOMMU group and that group's
    translation type (/sys/kernel/iommu_groups/N/type: identity, DMA, DMA-FQ, blocked)."""

    pci_bus_id: str
    numa_node: int | None = None
    cpu_list: str | None = None  # local_cpulist: "0-55,112-167"
    iommu_group: int | None = None
    iommu_group_type: str | None = None


@dataclass(frozen=True, eq=False, repr=False)
class EnvVar(Frozen):
    name: str
    value: str


@dataclass(frozen=True, eq=False, repr=False)
class NcclLibrary(Frozen):
    """A libnccl.so found in a directory of LD_LIBRARY_PATH, which the dynamic loader searches
    before a framework's RUNPATH to its own nvidia-nccl wheel."""

    path: str
    version: str | None = None  # from the file name, "2.21.5"


@dataclass(frozen=True, eq=False, repr=False)
class XidEvent(Frozen):
    """One `NVRM: Xid` line of the kernel log."""

    xid: int
    pci_bus_id: str | None = None  # sysfs form when the line names the device
    seconds_since_boot: float | None = None  # the kernel log's timestamp
    message: str = ""  # the text after the XID number, trimmed; process names removed


@dataclass(frozen=True, eq=False, repr=False)
class MultiGpuFacts(Frozen):
    """Everything the multi-GPU/multi-node checks read besides NVML. `collected` is False when
    the probe did not run (an older snapshot): checks then say unknown rather than judge."""

    collected: bool = False
    gpus: tuple[GpuLocality, ...] = ()
    nvswitch_count: int | None = None  # NVIDIA bridge (NVSwitch) functions on the PCI bus
    acs: tuple[PciBridgeAcs, ...] = ()
    acs_unreadable_reason: str | None = None  # set when no bridge's ACS register was readable
    ib_ports: tuple[IbPort, ...] = ()
    net_interfaces: tuple[str, ...] = ()  # /sys/class/net names
    shm_bytes: int | None = None  # size of /dev/shm
    memlock_bytes: int | None = None  # RLIMIT_MEMLOCK soft limit; None = unknown or unlimited
    memlock_unlimited: bool | None = None
    nccl_env: tuple[EnvVar, ...] = ()  # NCCL_* variables of the environment
    nccl_on_library_path: tuple[NcclLibrary, ...] = ()
    xid_readable: bool | None = None
    xid_unreadable_reason: str | None = None
    xid_events: tuple[XidEvent, ...] = ()
