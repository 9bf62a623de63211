"""The host around the GPUs, for multi-GPU and multi-node jobs: where each GPU sits (NUMA node,
local CPUs, IOMMU group and its type), PCIe ACS on the bridges above the GPUs, NVSwitch bridges,
InfiniBand/RoCE ports, network interfaces, /dev/shm, RLIMIT_MEMLOCK, the NCCL environment, and
the XID history of the kernel log (probes/xid.py). Everything is read below `root`, so a recorded
tree replays anywhere; nothing here raises for what a host lacks.

Sources: PCIe ACS and NCCL, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html
(PCI Access Control Services); the sysfs layout of InfiniBand ports,
https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-class-infiniband; IOMMU group types,
https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-kernel-iommu_groups.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from gpudoctor.facts import ProbeIssue
from gpudoctor.facts_multigpu import (
    EnvVar,
    GpuLocality,
    IbPort,
    MultiGpuFacts,
    NcclLibrary,
    PciBridgeAcs,
)
from gpudoctor.facts_view import NVIDIA_VENDOR
from gpudoctor.probes.files import (
    host_path,
    link_name,
    list_dir,
    natural_key,
    read_first_line,
    read_int,
    under,
)
from gpudoctor.probes.xid import read_xid_events
from gpudoctor.redaction import text as redact_text

PROBE = "multigpu"

_BDF = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
ACS_CAP_ID = 0x000D  # PCIe extended capability: Access Control Services
ACS_P2P_REDIRECT = 0x4 | 0x8  # ACS Control: P2P Request Redirect, P2P Completion Redirect
_SIZE = re.compile(r"(?:^|,)size=(\d+)([kmgKMG]?)(?:,|$)")
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}
# NCCL variables whose values a redacted snapshot keeps: settings, never paths or addresses.
NCCL_KEEP = frozenset(
    {
        "NCCL_P2P_DISABLE",
        "NCCL_P2P_LEVEL",
        "NCCL_SHM_DISABLE",
        "NCCL_IB_DISABLE",
        "NCCL_IB_HCA",
        "NCCL_NET",
        "NCCL_NET_GDR_LEVEL",
        "NCCL_SOCKET_IFNAME",
        "NCCL_DEBUG",
        "NCCL_ALGO",
        "NCCL_PROTO",
        "NCCL_CUMEM_ENABLE",
        "NCCL_NVLS_ENABLE",
    }
)
_LIBNCCL = re.compile(r"^libnccl\.so(?:\.(\d+(?:\.\d+)*))?$")


def probe_multigpu(
    root: Path, env: Mapping[str, str], *, redact: bool = True
) -> tuple[MultiGpuFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    gpus, switches = _nvidia_functions(root)
    acs, acs_reason = _acs(root, gpus)
    xid_ok, xid_reason, events = read_xid_events(root)
    memlock = _memlock(root)
    if xid_reason and xid_ok is False:
        issues.append(ProbeIssue(PROBE, "xid_events", "kernel-log-unreadable", xid_reason))
    facts = MultiGpuFacts(
        collected=True,
        gpus=tuple(_locality(root, address) for address in gpus),
        nvswitch_count=len(switches) if (root / "sys/bus/pci/devices").is_dir() else None,
        acs=acs,
        acs_unreadable_reason=acs_reason,
        ib_ports=ib_ports(root),
        net_interfaces=tuple(sorted(list_dir(root / "sys/class/net"), key=natural_key)),
        shm_bytes=shm_size(root),
        memlock_bytes=memlock[0],
        memlock_unlimited=memlock[1],
        nccl_env=nccl_env(env, redact=redact),
        nccl_on_library_path=nccl_on_library_path(root, env, redact=redact),
        xid_readable=xid_ok,
        xid_unreadable_reason=xid_reason,
        xid_events=events,
    )
    return facts, issues


def _nvidia_functions(root: Path) -> tuple[list[str], list[str]]:
    """(GPU addresses, NVSwitch addresses) of NVIDIA PCI functions; VFs are left out."""
    base = root / "sys/bus/pci/devices"
    gpus, switches = [], []
    for address in sorted(list_dir(base)):
        path = base / address
        if (read_first_line(path / "vendor") or "").lower() != NVIDIA_VENDOR:
            continue
        klass = (read_first_line(path / "class") or "").lower().removeprefix("0x")
        if klass.startswith(("0300", "0302")) and not os.path.lexists(path / "physfn"):
            gpus.append(address)
        elif klass == "068000":
            switches.append(address)
    return gpus, switches


def _locality(root: Path, address: str) -> GpuLocality:
    path = root / "sys/bus/pci/devices" / address
    numa = read_int(path / "numa_node")
    group = link_name(path / "iommu_group")
    group_id = int(group) if group and group.isdecimal() else None
    kind = None
    if group_id is not None:
        kind = read_first_line(root / f"sys/kernel/iommu_groups/{group_id}/type")
    return GpuLocality(
        pci_bus_id=address,
        numa_node=numa if numa is not None and numa >= 0 else None,
        cpu_list=read_first_line(path / "local_cpulist"),
        iommu_group=group_id,
        iommu_group_type=kind,
    )


def bridges_above(root: Path, address: str) -> list[Path]:
    """The PCI bridges between a device and its root port, nearest first, from the device's
    place in /sys/devices (/sys/bus/pci/devices/X links there)."""
    try:
        real = (root / "sys/bus/pci/devices" / address).resolve(strict=True)
        top = root.resolve()
    except OSError:
        return []
    out = []
    parent = real.parent
    while _BDF.match(parent.name) and parent.is_relative_to(top):
        out.append(parent)
        parent = parent.parent
    return out


def _acs(root: Path, gpus: list[str]) -> tuple[tuple[PciBridgeAcs, ...], str | None]:
    found: dict[str, PciBridgeAcs] = {}
    unreadable = 0
    for gpu in gpus:
        for bridge in bridges_above(root, gpu):
            if bridge.name in found:
                continue
            try:
                config = (bridge / "config").read_bytes()
            except OSError:
                config = b""
            has_acs, control = acs_control(config)
            if has_acs is None:
                unreadable += 1
            found[bridge.name] = PciBridgeAcs(
                address=bridge.name,
                gpu_pci_bus_id=gpu,
                has_acs=has_acs,
                control=control,
                redirect=None if has_acs is None else bool((control or 0) & ACS_P2P_REDIRECT),
            )
    reason = None
    if found and unreadable == len(found):
        reason = (
            "the bridges' extended PCI config space (offset 0x100 and up) is readable by root "
            "only; run as root to judge PCIe ACS"
        )
    elif not found and gpus:
        reason = "no PCI bridge found above the GPUs (a VM guest, or sysfs not visible)"
    return tuple(sorted(found.values(), key=lambda b: b.address)), reason


def acs_control(config: bytes) -> tuple[bool | None, int | None]:
    """(has ACS, ACS Control) from a PCI config space dump; (None, None) when the extended space
    was not readable (an unprivileged read returns the first 64 or 256 bytes only)."""
    if len(config) <= 0x100:
        return None, None
    offset, seen = 0x100, 0
    while offset and offset + 8 <= len(config) and seen < 64:
        header = int.from_bytes(config[offset : offset + 4], "little")
        if header in (0, 0xFFFFFFFF):
            break
        if header & 0xFFFF == ACS_CAP_ID:
            return True, int.from_bytes(config[offset + 6 : offset + 8], "little")
        offset, seen = (header >> 20) & 0xFFC, seen + 1
    return False, None


def ib_ports(root: Path) -> tuple[IbPort, ...]:
    base = root / "sys/class/infiniband"
    ports = []
    for device in sorted(list_dir(base), key=natural_key):
        for port in sorted(list_dir(base / device / "ports"), key=natural_key):
            path = base / device / "ports" / port
            if not port.isdecimal():
                continue
            ports.append(
                IbPort(
                    device=device,
                    port=int(port),
                    state=_after_colon(read_first_line(path / "state")),
                    phys_state=_after_colon(read_first_line(path / "phys_state")),
                    rate=read_first_line(path / "rate"),
                    link_layer=read_first_line(path / "link_layer"),
                )
            )
    return tuple(ports)


def _after_colon(text: str | None) -> str | None:
    """ "4: ACTIVE" -> "ACTIVE"."""
    return None if text is None else text.split(":", 1)[-1].strip()


def shm_size(root: Path) -> int | None:
    """Size of /dev/shm: the tmpfs `size=` mount option (Docker's --shm-size shows there), else
    the file system's size."""
    for line in read_first_lines(root / "proc/self/mountinfo") or []:
        parts = line.split(" - ", 1)
        fields = parts[0].split()
        if len(fields) > 4 and fields[4] == "/dev/shm" and len(parts) == 2:
            options = parts[1].split()[-1] if parts[1].split() else ""
            match = _SIZE.search(options)
            if match:
                return int(match.group(1)) * _UNITS[match.group(2).lower()]
    path = root / "dev/shm"
    if not path.is_dir():
        return None
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_blocks * stat.f_frsize


def read_first_lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def _memlock(root: Path) -> tuple[int | None, bool | None]:
    """(bytes, unlimited) of RLIMIT_MEMLOCK (soft) from /proc/self/limits: RDMA registers
    (pins) memory within it."""
    for line in read_first_lines(root / "proc/self/limits") or []:
        if line.startswith("Max locked memory"):
            soft = line[len("Max locked memory") :].split()[:1]
            if soft == ["unlimited"]:
                return None, True
            if soft and soft[0].isdecimal():
                return int(soft[0]), False
    return None, None


def nccl_env(env: Mapping[str, str], *, redact: bool) -> tuple[EnvVar, ...]:
    out = []
    for name in sorted(k for k in env if k.startswith("NCCL_")):
        keep = not redact or name in NCCL_KEEP
        out.append(EnvVar(name, env[name] if keep else "<redacted>"))
    return tuple(out)


def nccl_on_library_path(
    root: Path, env: Mapping[str, str], *, redact: bool
) -> tuple[NcclLibrary, ...]:
    found = []
    for directory in filter(None, env.get("LD_LIBRARY_PATH", "").split(os.pathsep)):
        folder = under(root, directory)
        for name in sorted(list_dir(folder)):
            match = _LIBNCCL.match(name)
            if match is None:
                continue
            version = match.group(1)
            if version is None or version.count(".") < 2:  # libnccl.so.2 -> its target's name
                target = _LIBNCCL.match(os.path.basename(os.path.realpath(folder / name)))
                version = target.group(1) if target and target.group(1) else version
            shown = host_path(root, folder / name)
            found.append(NcclLibrary(redact_text(shown) if redact else shown, version))
            break  # one per folder: the loader takes the first match there
    return tuple(found)
