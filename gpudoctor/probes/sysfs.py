"""Kernel-side facts from sysfs and procfs: NVIDIA PCI functions, the loaded driver and its
module flavor, kernel modules, nouveau blacklisting, /dev/nvidia* nodes and their permissions.

All of it works without any NVIDIA driver.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gpudoctor.facts import DeviceNode, KernelFacts, PciDevice, ProbeIssue
from gpudoctor.facts_view import NVIDIA_VENDOR
from gpudoctor.probes.files import (
    host_path,
    link_name,
    list_dir,
    natural_key,
    read_first_line,
    read_int,
    read_text,
)
from gpudoctor.probes.redact import kernel_cmdline
from gpudoctor.probes.vgpu_guest import host_driver, read_config

PROBE = "sysfs"

MODULES_OF_INTEREST = (
    "nvidia",
    "nvidia_uvm",
    "nvidia_modeset",
    "nvidia_drm",
    "nvidia_peermem",
    "nouveau",
    "vfio_pci",
)
# PCIe transfer rate per lane -> generation (sysfs prints "16.0 GT/s PCIe").
_GT_TO_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
_NVRM = re.compile(r"NVRM version:.*?(Open )?Kernel Module.*?\s(\d+\.\d+(?:\.\d+)*)\s")
_NOUVEAU_CMDLINE = re.compile(
    r"(?:^|\s)(?:(?:modprobe|rd\.driver)\.blacklist=\S*\bnouveau\b|nouveau\.modeset=0)"
)


def probe_kernel(root: Path, *, redact: bool = True) -> tuple[KernelFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    cmdline = read_first_line(root / "proc/cmdline")
    version, flavor = driver_version(root)
    facts = KernelFacts(
        release=kernel_release(root),
        cmdline=kernel_cmdline(cmdline) if (cmdline and redact) else cmdline,
        nvidia_module_version=version,
        nvidia_module_flavor=flavor,
        modules_loaded=loaded_modules(root),
        nouveau_blacklisted=nouveau_blacklisted(root, cmdline),
        # NCCL before 2.23.4 finds GPUDirect RDMA only through these (checks/nccl.py)
        peer_memory_clients=tuple(sorted(list_dir(root / "sys/kernel/mm/memory_peers"))),
        nvidia_dkms_kernels=dkms_nvidia_kernels(root),
        device_nodes=device_nodes(root),
        pci_devices=nvidia_pci_devices(root),
    )
    if not (root / "proc/modules").exists() and not (root / "sys/module").is_dir():
        # Lets checks tell "nothing loaded" (empty modules_loaded, no issue) from "cannot see".
        reason = "neither /proc/modules nor /sys/module is readable"
        issues.append(ProbeIssue(PROBE, "modules_loaded", "kernel-modules-unreadable", reason))
    if not (root / "sys/bus/pci/devices").is_dir():
        issues.append(
            ProbeIssue(PROBE, "pci_devices", "sysfs-pci-unreadable", "no /sys/bus/pci/devices")
        )
    return facts, issues


def kernel_release(root: Path) -> str | None:
    release = read_first_line(root / "proc/sys/kernel/osrelease")
    if release is None and root == Path("/"):
        release = os.uname().release
    return release


def dkms_nvidia_kernels(root: Path) -> tuple[str, ...] | None:
    """The kernels DKMS has installed the nvidia module for, read from its tree as `dkms status`
    does: an install is the link /var/lib/dkms/nvidia/kernel-<kernel>-<arch> pointing at
    <version>/<kernel>/<arch> (dkms removes it on uninstall). None where the tree has no nvidia
    module: a runfile install, a distribution's precompiled module, or a container."""
    tree = root / "var/lib/dkms/nvidia"
    if not tree.is_dir():
        return None
    kernels: set[str] = set()
    for name in list_dir(tree):
        kernel, _, arch = name[len("kernel-") :].rpartition("-")
        link = tree / name
        # exists() follows the link: a dangling one is no install
        if name.startswith("kernel-") and kernel and arch and link.is_symlink() and link.exists():
            kernels.add(kernel)
    return tuple(sorted(kernels, key=natural_key))


def driver_version(root: Path) -> tuple[str | None, str | None]:
    """Loaded NVIDIA kernel module version and module flavor ("open" or "proprietary")."""
    text = read_text(root / "proc/driver/nvidia/version")
    if text:
        match = _NVRM.search(text)
        if match:
            return match.group(2), "open" if match.group(1) else "proprietary"
    # /sys/module/nvidia/version names the loaded module but not its module flavor.
    return read_first_line(root / "sys/module/nvidia/version"), None


def loaded_modules(root: Path) -> tuple[str, ...]:
    loaded = {name for name in MODULES_OF_INTEREST if (root / "sys/module" / name).is_dir()}
    for line in (read_text(root / "proc/modules") or "").splitlines():
        name = line.split(" ", 1)[0]
        if name in MODULES_OF_INTEREST:
            loaded.add(name)
    return tuple(name for name in MODULES_OF_INTEREST if name in loaded)


def nouveau_off_in_cmdline(cmdline: str) -> bool:
    """The kernel command line keeps nouveau out (blacklist or modeset=0); also read from a
    pasted /proc/cmdline."""
    return _NOUVEAU_CMDLINE.search(cmdline) is not None


def nouveau_blacklisted(root: Path, cmdline: str | None) -> bool | None:
    """True when modprobe configuration or the kernel command line keeps nouveau out;
    None when no modprobe.d directory exists (inside a container the host's is not visible;
    the kernel command line alone rarely carries the blacklist)."""
    if cmdline and nouveau_off_in_cmdline(cmdline):
        return True
    conf_dirs = [root / d for d in ("etc/modprobe.d", "usr/lib/modprobe.d", "lib/modprobe.d")]
    seen_any = any(d.is_dir() for d in conf_dirs)
    for conf_dir in conf_dirs:
        for name in list_dir(conf_dir):
            if not name.endswith(".conf"):
                continue
            for raw in (read_text(conf_dir / name) or "").splitlines():
                words = raw.split("#", 1)[0].split()
                if words[:2] == ["blacklist", "nouveau"]:
                    return True
                # "install nouveau /bin/false" is the other common way to keep it from loading.
                if words[:2] == ["install", "nouveau"] and words[2:3] in (
                    ["/bin/false"],
                    ["/bin/true"],
                ):
                    return True
    return False if seen_any else None


def device_nodes(root: Path) -> tuple[DeviceNode, ...]:
    dev = root / "dev"
    paths = [dev / n for n in list_dir(dev) if n.startswith("nvidia") and n != "nvidia-caps"]
    paths += [dev / "nvidia-caps" / n for n in list_dir(dev / "nvidia-caps")]
    nodes = [
        DeviceNode(
            path=host_path(root, p),
            readable=os.access(p, os.R_OK),
            writable=os.access(p, os.W_OK),
        )
        for p in paths
    ]
    return tuple(sorted(nodes, key=lambda n: natural_key(n.path)))


def nvidia_pci_devices(root: Path) -> tuple[PciDevice, ...]:
    base = root / "sys/bus/pci/devices"
    devices = []
    for address in list_dir(base):
        path = base / address
        if (read_first_line(path / "vendor") or "").lower() != NVIDIA_VENDOR:
            continue
        devices.append(pci_device(address, path))
    return tuple(devices)


def pci_device(address: str, path: Path) -> PciDevice:
    class_code = (read_first_line(path / "class") or "").lower() or None
    group = link_name(path / "iommu_group")
    numa = read_int(path / "numa_node")
    host_version, host_branch = host_driver(read_config(path / "config"))
    return PciDevice(
        address=address,
        vendor_id=NVIDIA_VENDOR,
        device_id=(read_first_line(path / "device") or "").lower() or None,
        class_code=class_code,
        kind=device_kind(class_code),
        driver=link_name(path / "driver"),
        iommu_group=int(group) if group and group.isdecimal() else None,
        numa_node=numa if numa is not None and numa >= 0 else None,
        link_gen_current=link_gen(read_first_line(path / "current_link_speed")),
        link_gen_max=link_gen(read_first_line(path / "max_link_speed")),
        link_width_current=_width(read_first_line(path / "current_link_width")),
        link_width_max=_width(read_first_line(path / "max_link_width")),
        sriov_totalvfs=read_int(path / "sriov_totalvfs"),
        sriov_numvfs=read_int(path / "sriov_numvfs"),
        is_virtual_function=os.path.lexists(path / "physfn"),
        vgpu_host_driver_version=host_version,
        vgpu_host_driver_branch=host_branch,
    )


def device_kind(class_code: str | None) -> str:
    """PCI class -> kind; the HDMI audio function of consumer boards is not a GPU."""
    if not class_code:
        return "other"
    code = class_code.lower().removeprefix("0x")
    if code.startswith(("0300", "0302")):
        return "gpu"
    if code == "068000":
        return "nvswitch"
    if code.startswith("0403"):
        return "audio"
    return "other"


def link_gen(speed: str | None) -> int | None:
    """ "16.0 GT/s PCIe" -> 4; "Unknown" or anything else -> None."""
    match = re.match(r"\s*([\d.]+)\s*GT/s", speed or "")
    return _GT_TO_GEN.get(float(match.group(1))) if match else None


def _width(text: str | None) -> int | None:
    value = (text or "").lower().removeprefix("x")
    # 255 is what some devices report when the link is down.
    return int(value) if value.isdecimal() and 0 < int(value) < 255 else None
