"""NVML for multi-GPU readiness: NVLinks and fabric registration per GPU, and for every GPU pair
the topology level and P2P status. Every call goes through `NvmlSession.query`, so a driver or
GPU without the feature gives None, never an error.

Command-line equivalents: `nvidia-smi nvlink -s` / `-e`, `nvidia-smi -q` (Fabric section),
`nvidia-smi topo -m`, `nvidia-smi topo -p2p rwna`. API reference: NVML's NvLink, Topology and
GPU fabric query sections (https://docs.nvidia.com/deploy/nvml-api/group__NvLink.html,
https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html); constants as nvml.h and
nvidia-ml-py 13.x define them.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from gpudoctor.facts_multigpu import FabricFacts, GpuPairFacts, NvLinkFacts
from gpudoctor.probes.nvml_decode import normalize_bus_id, text

if TYPE_CHECKING:
    from gpudoctor.probes.nvml_device import DeviceQuery
    from gpudoctor.probes.nvml_session import NvmlSession

# NVML_NVLINK_MAX_LINKS: 36 in nvml.h since R570 (Blackwell); older drivers answer
# InvalidArgument or NotSupported for link numbers they do not have, which reads as "no link".
MAX_LINKS = 36
INVALID_ARGUMENT = 2
_NO_SUCH_LINK = frozenset({INVALID_ARGUMENT})
# nvmlNvlinkVersion_t (NVML_NVLINK_VERSION_*)
NVLINK_VERSIONS = {1: "1.0", 2: "2.0", 3: "2.2", 4: "3.0", 5: "3.1", 6: "4.0", 7: "5.0", 8: "6.0"}
# nvmlIntNvLinkDeviceType_t (NVML_NVLINK_DEVICE_TYPE_*)
REMOTE_TYPES = {0: "gpu", 1: "ibmnpu", 2: "switch", 0xFF: "unknown"}
# nvmlNvLinkErrorCounter_t: (counter, NvLinkFacts field)
ERROR_COUNTERS = (
    (0, "replay_errors"),  # NVML_NVLINK_ERROR_DL_REPLAY
    (1, "recovery_errors"),  # NVML_NVLINK_ERROR_DL_RECOVERY
    (2, "crc_flit_errors"),  # NVML_NVLINK_ERROR_DL_CRC_FLIT
    (3, "crc_data_errors"),  # NVML_NVLINK_ERROR_DL_CRC_DATA
)
# nvmlGpuFabricState_t (NVML_GPU_FABRIC_STATE_*)
FABRIC_STATES = {0: "not_supported", 1: "not_started", 2: "in_progress", 3: "completed"}
# nvmlGpuTopologyLevel_t (NVML_TOPOLOGY_*)
TOPOLOGY_LEVELS = {
    0: "internal",
    10: "single",
    20: "multiple",
    30: "hostbridge",
    40: "node",
    50: "system",
}
# nvmlGpuP2PCapsIndex_t: READ 0, WRITE 1, NVLINK 2, ATOMICS 3 (nvidia-ml-py spells READ as a
# one-element tuple by mistake, so the numbers are written out here).
P2P_CAPS = (("p2p_read", 0), ("p2p_write", 1), ("p2p_nvlink", 2), ("p2p_atomics", 3))
# nvmlGpuP2PStatus_t (NVML_P2P_STATUS_*)
P2P_STATUSES = {
    0: "ok",
    1: "chipset_not_supported",
    2: "gpu_not_supported",
    3: "topology_not_supported",
    4: "disabled_by_regkey",
    5: "not_supported",
    6: "unknown",
}


def collect_links(q: DeviceQuery, fields: dict[str, Any]) -> None:
    """NVLinks and fabric registration of one GPU, written into `fields`."""
    links: list[NvLinkFacts] = []
    shared: dict[str, Any] = {}
    for link in range(MAX_LINKS):
        state = q("nvmlDeviceGetNvLinkState", link, field=f"nvlinks[{link}]", quiet=_NO_SUCH_LINK)
        if state is None:
            # Links are numbered from 0 without gaps: the first one the GPU does not have ends
            # the list (on a PCIe-only GPU that is link 0: one call, not 36).
            break
        links.append(_link(q, link, bool(state), shared))
    fields["nvlinks"] = tuple(links)
    fields["fabric"] = _fabric(q)


def _link(q: DeviceQuery, link: int, active: bool, shared: dict[str, Any]) -> NvLinkFacts:
    """One link. Version and remote device type are read on the GPU's first (active) link and
    taken for the others: NVML reports them per link, but a GPU's links are of one generation
    and all go to NVSwitches or all to peer GPUs, and each saved call counts on an 8-GPU host
    (bench/README.md)."""
    where = f"nvlinks[{link}]"
    if "version" not in shared:
        shared["version"] = q("nvmlDeviceGetNvLinkVersion", link, field=where, quiet=_NO_SUCH_LINK)
    version = shared["version"]
    values: dict[str, Any] = {}
    if active:  # an inactive link has no remote end and no counters worth reading
        remote = q(
            "nvmlDeviceGetNvLinkRemotePciInfo",
            link,
            field=where,
            symbol="nvmlDeviceGetNvLinkRemotePciInfo_v2",
        )
        bus_id = None if remote is None else text(getattr(remote, "busId", None))
        values["remote_pci_bus_id"] = normalize_bus_id(bus_id) if bus_id else None
        if "kind" not in shared:
            shared["kind"] = q("nvmlDeviceGetNvLinkRemoteDeviceType", link, field=where)
        kind = shared["kind"]
        values["remote_type"] = None if kind is None else REMOTE_TYPES.get(int(kind), "unknown")
        for counter, name in ERROR_COUNTERS:
            values[name] = q("nvmlDeviceGetNvLinkErrorCounter", link, counter, field=where)
    return NvLinkFacts(
        link=link,
        active=active,
        version=None if version is None else NVLINK_VERSIONS.get(int(version), str(version)),
        **values,
    )


def _fabric(q: DeviceQuery) -> FabricFacts | None:
    """The V call (with the health mask) where driver and binding have it, else the first one."""
    nvml = q.session.nvml
    v_struct = getattr(nvml, "c_nvmlGpuFabricInfoV_t", None)
    if v_struct is not None:
        info = v_struct()
        if q("nvmlDeviceGetGpuFabricInfoV", ctypes.byref(info), field="fabric") is not None:
            return _fabric_facts(info, health=True)
        if "nvmlDeviceGetGpuFabricInfoV" not in q.session.functions_not_found:
            return None  # not supported (not an NVSwitch system), or an error already recorded
    v1_struct = getattr(nvml, "c_nvmlGpuFabricInfo_t", None)
    if v1_struct is None:
        return None
    info = v1_struct()
    if q("nvmlDeviceGetGpuFabricInfo", ctypes.byref(info), field="fabric") is None:
        return None
    return _fabric_facts(info, health=False)


def _fabric_facts(info: Any, *, health: bool) -> FabricFacts:
    state = int(info.state)
    return FabricFacts(
        state=FABRIC_STATES.get(state, f"state_{state}"),
        status=int(info.status),
        health_mask=int(info.healthMask) if health else None,
    )


def collect_pairs(session: NvmlSession, count: int, skip: set[int]) -> tuple[GpuPairFacts, ...]:
    """Topology level and P2P caps of every pair of GPUs (a < b), GPUs in `skip` (lost) left
    out. P2P status is read from a to b; NVML reports the pair symmetric in practice."""
    handles: dict[int, Any] = {}
    for index in range(count):
        if index in skip:
            continue
        handle, exc = session.call("nvmlDeviceGetHandleByIndex", index)
        if exc is None:
            handles[index] = handle
    pairs = []
    indices = sorted(handles)
    for pos, a in enumerate(indices):
        for b in indices[pos + 1 :]:
            pairs.append(_pair(session, a, b, handles[a], handles[b]))
    return tuple(pairs)


def _pair(session: NvmlSession, a: int, b: int, ha: Any, hb: Any) -> GpuPairFacts:
    where = f"pairs[{a},{b}]"
    level = session.query("nvmlDeviceGetTopologyCommonAncestor", ha, hb, field=where)
    values: dict[str, str | None] = {
        "topology": None if level is None else TOPOLOGY_LEVELS.get(int(level), f"level_{level}")
    }
    for name, index in P2P_CAPS:
        status = session.query("nvmlDeviceGetP2PStatus", ha, hb, index, field=where)
        values[name] = None if status is None else P2P_STATUSES.get(int(status), "unknown")
    return GpuPairFacts(gpu_a=a, gpu_b=b, **values)
