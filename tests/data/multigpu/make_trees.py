"""Recorded sysfs/procfs trees for the multi-GPU probe, written by this script (re-run it after
changing it; tests/probes/test_probe_multigpu.py builds the same trees into tmp and compares).

    python tests/data/multigpu/make_trees.py

- hgx-h100-ib: an HGX H100 node as root sees it: 8 GPUs, two per PCIe switch, below root ports;
  four NVSwitches (PCI class 0x068000); ACS present with P2P redirect off; four ConnectX-7 HCAs
  (mlx5_0..3, InfiniBand NDR, mlx5_3 port 1 down), nvidia_peermem not loaded; IOMMU groups of
  type identity; /dev/shm without a size option; a kernel log with XID lines.
- pcie-4gpu-acs: a PCIe box with 4 GPUs behind one PLX switch whose downstream ports have ACS
  P2P Request/Completion Redirect on; inside Docker with the default 64 MiB /dev/shm.
Config-space files hold the first 0x180 bytes: the header, then the ACS extended capability at
0x100 (what `lspci -vvv` decodes as ACSCtl).
"""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent


def config(acs_control: int | None) -> bytes:
    data = bytearray(0x180)
    data[0:4] = (0x10B5 | (0x8796 << 16)).to_bytes(4, "little")  # a PCIe switch port
    if acs_control is not None:
        data[0x100:0x104] = (0x000D | (1 << 16)).to_bytes(4, "little")  # ACS, v1, no next
        data[0x104:0x106] = (0x005F).to_bytes(2, "little")  # capability: SV TB RR CR UF DT
        data[0x106:0x108] = acs_control.to_bytes(2, "little")
    return bytes(data)


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text + "\n", encoding="utf-8")


def device(root: Path, chain: list[str], klass: str, vendor: str = "0x10de", **extra: str) -> None:
    """A PCI function at the end of `chain` (root port first), linked from /sys/bus/pci."""
    real = root / "sys/devices" / "pci0000:00" / Path(*chain)
    for key, value in {"vendor": vendor, "class": klass, **extra}.items():
        write(real / key, value)
    link = root / "sys/bus/pci/devices" / chain[-1]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(Path("../../../devices/pci0000:00", *chain))


def bridge(root: Path, chain: list[str], acs: int | None) -> None:
    write(root / "sys/devices/pci0000:00" / Path(*chain) / "config", config(acs))


def gpu(root: Path, chain: list[str], *, group: int, numa: int, cpus: str, kind: str) -> None:
    device(root, chain, "0x030200", numa_node=str(numa), local_cpulist=cpus)
    link = root / "sys/devices/pci0000:00" / Path(*chain) / "iommu_group"
    link.symlink_to(f"../../../../../kernel/iommu_groups/{group}")
    write(root / f"sys/kernel/iommu_groups/{group}/type", kind)


KMSG = HERE / "kmsg-xid.txt"  # /dev/kmsg records: "prio,seq,usec,flags;text"


LIMITS = "Max open files            1048576              1048576              files\n" + (
    "Max locked memory         {0:<20} {0:<20} bytes"
)


def hgx(root: Path) -> None:
    for i, bus in enumerate((0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB)):
        port = f"0000:00:{1 + i // 2:02x}.0"
        up = f"0000:{bus - 2:02x}:00.0"
        down = f"0000:{bus - 1:02x}:{i % 2:02x}.0"
        for part in ([port], [port, up], [port, up, down]):
            bridge(root, part, 0x0011)  # SV + UF: redirect off
        cpus = "0-55,112-167" if i < 4 else "56-111,168-223"
        chain = [port, up, down, f"0000:{bus:02x}:00.0"]
        gpu(root, chain, group=20 + i, numa=i // 4, cpus=cpus, kind="identity")
    for n in range(4):
        device(root, ["0000:00:0f.0", f"0000:0{5 + n}:00.0"], "0x068000")
    for n in range(4):
        port = root / f"sys/class/infiniband/mlx5_{n}/ports/1"
        down = n == 3
        write(port / "state", "1: DOWN" if down else "4: ACTIVE")
        write(port / "phys_state", "3: Disabled" if down else "5: LinkUp")
        write(port / "rate", "10 Gb/sec (4X SDR)" if down else "400 Gb/sec (4X NDR)")
        write(port / "link_layer", "InfiniBand")
    for name in ("lo", "eno1", "ib0", "ib1", "ib2", "ib3"):
        # A file in each folder: git keeps no empty folder, and a clone must hold the tree.
        write(root / "sys/class/net" / name / "operstate", "unknown" if name == "lo" else "up")
    write(root / "proc/self/limits", LIMITS.format("unlimited"))
    write(root / "proc/self/mountinfo", "30 25 0:26 / /dev/shm rw shared:4 - tmpfs tmpfs rw")
    write(root / "dev/kmsg", KMSG.read_text(encoding="utf-8").rstrip("\n"))


def pcie_acs(root: Path) -> None:
    upstream = ["0000:00:03.0", "0000:01:00.0"]
    bridge(root, upstream[:1], None)  # the root port: no ACS capability
    bridge(root, upstream, 0x001D)  # SV RR CR UF
    for i in range(4):
        down = f"0000:02:{i + 8:02x}.0"
        bridge(root, [*upstream, down], 0x001D)
        chain = [*upstream, down, f"0000:{3 + i:02x}:00.0"]
        gpu(root, chain, group=30 + i, numa=0, cpus="0-31", kind="DMA-FQ")
    for name in ("lo", "eth0"):
        # A file in each folder: git keeps no empty folder, and a clone must hold the tree.
        write(root / "sys/class/net" / name / "operstate", "unknown" if name == "lo" else "up")
    write(root / "proc/self/limits", LIMITS.format("8388608"))
    shm = "600 590 0:80 / /dev/shm rw,nosuid,nodev - tmpfs shm rw,size=65536k,inode64"
    write(root / "proc/self/mountinfo", shm)


TREES = {"hgx-h100-ib": hgx, "pcie-4gpu-acs": pcie_acs}


def build(target: Path) -> None:
    for name, fill in TREES.items():
        shutil.rmtree(target / name, ignore_errors=True)
        fill(target / name)


if __name__ == "__main__":
    build(HERE)
