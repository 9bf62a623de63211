"""Platform facts: distribution, VM or bare metal, WSL, container and Kubernetes context,
the NVIDIA_* / CUDA_* environment, and IOMMU state."""

from __future__ import annotations

import platform as _platform
import re
import socket
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from gpudoctor.facts import IommuFacts, PlatformFacts, ProbeIssue
from gpudoctor.probes.cpu import probe_cpu
from gpudoctor.probes.files import list_dir, read_first_line, read_text
from gpudoctor.probes.vgpu_guest import licence_client

PROBE = "platform"

# DMI prefixes -> systemd-detect-virt names (systemd src/basic/virt.c, dmi_vendor_table).
_DMI_VENDORS = (
    ("KVM", "kvm"),
    ("OpenStack", "kvm"),
    ("KubeVirt", "kvm"),
    ("Amazon EC2", "amazon"),
    ("QEMU", "qemu"),
    ("VMware", "vmware"),
    ("VMW", "vmware"),
    ("innotek GmbH", "oracle"),
    ("VirtualBox", "oracle"),
    ("Oracle Corporation", "oracle"),
    ("Xen", "xen"),
    ("Bochs", "bochs"),
    ("Parallels", "parallels"),
    ("BHYVE", "bhyve"),
    ("Hyper-V", "microsoft"),
    ("Apple Virtualization", "apple"),
    ("Google Compute Engine", "google"),
)
_DMI_FILES = ("sys_vendor", "product_name", "board_vendor", "bios_vendor", "product_version")
_CGROUP_HINTS = (
    ("kubepods", "containerd"),
    ("docker", "docker"),
    ("libpod", "podman"),
    ("containerd", "containerd"),
    ("lxc", "lxc"),
)
_IOMMU_FLAG = re.compile(r"^(intel_iommu|amd_iommu|iommu|iommu\.passthrough|iommu\.strict)=")


def probe_platform(
    root: Path, env: Mapping[str, str], *, redact: bool = True
) -> tuple[PlatformFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    os_release = read_os_release(root)
    if not os_release:
        issues.append(ProbeIssue(PROBE, "os_id", "os-release-missing", "no /etc/os-release"))
    dmi_vendor = read_first_line(root / "sys/class/dmi/id/sys_vendor")
    dmi_product = read_first_line(root / "sys/class/dmi/id/product_name")
    flag = hypervisor_flag(root)
    container = container_kind(root)
    cpu, cpu_issues = probe_cpu(root)
    issues.extend(cpu_issues)
    facts = PlatformFacts(
        os_id=os_release.get("ID"),
        os_version=os_release.get("VERSION_ID"),
        os_pretty=os_release.get("PRETTY_NAME"),
        machine=_platform.machine() or None,
        python_version=_platform.python_version(),
        hostname=None if redact else hostname(root),
        virtualization=virtualization(root, flag),
        hypervisor_flag=flag,
        dmi_vendor=dmi_vendor,
        dmi_product=dmi_product,
        wsl=is_wsl(root),
        container=container,
        kubernetes=is_kubernetes(root, env),
        nvidia_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"),
        nvidia_driver_capabilities=env.get("NVIDIA_DRIVER_CAPABILITIES"),
        cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
        systemd=(root / "run/systemd/system").is_dir(),
        l4t_release=l4t_release(read_first_line(root / "etc/nv_tegra_release")),
        iommu=probe_iommu(root),
        vgpu_client=licence_client(root),
        cpu=cpu,
    )
    return facts, issues


_L4T = re.compile(r"#\s*R(\d{2,3})\s*\(release\),\s*REVISION:\s*(\d{1,3})\.(\d{1,3})")


def l4t_release(line: str | None) -> str | None:
    """/etc/nv_tegra_release's first line, "# R36 (release), REVISION: 3.0, GCID: ..." ->
    "36.3.0": the L4T (Jetson Linux) release of a Jetson."""
    found = _L4T.search(line or "")
    return f"{found.group(1)}.{found.group(2)}.{found.group(3)}" if found else None


def read_os_release(root: Path) -> dict[str, str]:
    text = read_text(root / "etc/os-release") or read_text(root / "usr/lib/os-release") or ""
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            values[key.strip()] = value.strip().strip("\"'")
    return values


def hostname(root: Path) -> str | None:
    name = read_first_line(root / "proc/sys/kernel/hostname")
    if name is None and root == Path("/"):
        name = socket.gethostname()
    return name or None


def hypervisor_flag(root: Path) -> bool | None:
    """The x86 CPUID "hypervisor" bit as /proc/cpuinfo shows it; None where cpuinfo has no
    flags line (other architectures) or cannot be read."""
    text = read_text(root / "proc/cpuinfo", limit=256 * 1024)
    if text is None:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "flags":
            return "hypervisor" in value.split()
    return None


def virtualization(root: Path, flag: bool | None) -> str | None:
    """ "none", a systemd-detect-virt style vendor name, "other" (a hypervisor we cannot name),
    or None (cannot tell)."""
    dmi = [read_first_line(root / "sys/class/dmi/id" / name) or "" for name in _DMI_FILES]
    product = dmi[1]
    # On x86 the CPUID bit is authoritative: EC2 bare metal (".metal") and vendors that also sell
    # servers ("Oracle Corporation") carry VM-looking DMI strings without it.
    if flag is False:
        return "none"
    if dmi[0] == "Microsoft Corporation" and product == "Virtual Machine":
        return "microsoft"
    for value in dmi:
        for prefix, name in _DMI_VENDORS:
            if value.startswith(prefix):
                return "none" if (name == "amazon" and product.endswith(".metal")) else name
    hyper = read_first_line(root / "sys/hypervisor/type")
    if hyper:
        return hyper.lower()
    return "other" if flag else None


def is_wsl(root: Path) -> bool:
    text = " ".join(
        read_first_line(root / p) or "" for p in ("proc/sys/kernel/osrelease", "proc/version")
    ).lower()
    return "microsoft" in text or "wsl" in text or (root / "dev/dxg").exists()


def container_kind(root: Path) -> str | None:
    """Which container engine runs us, by its marker files, then by PID 1's cgroup."""
    if (root / ".dockerenv").exists():
        return "docker"
    if (root / "run/.containerenv").exists():
        return "podman"
    manager = read_first_line(root / "run/systemd/container") or read_first_line(
        root / "run/host/container-manager"
    )
    if manager:
        return manager
    cgroup = read_text(root / "proc/1/cgroup") or ""
    for hint, name in _CGROUP_HINTS:
        if hint in cgroup:
            return name
    return None


def is_kubernetes(root: Path, env: Mapping[str, str]) -> bool:
    return (
        "KUBERNETES_SERVICE_HOST" in env
        or (root / "var/run/secrets/kubernetes.io/serviceaccount").is_dir()
    )


def probe_iommu(root: Path) -> IommuFacts:
    class_dir = root / "sys/class/iommu"
    units = [u for u in list_dir(class_dir) if not u.startswith(".")]
    groups_dir = root / "sys/kernel/iommu_groups"
    groups = [g for g in list_dir(groups_dir) if g.isdecimal()]
    if units or groups:
        enabled: bool | None = True
    else:
        enabled = False if (class_dir.is_dir() or groups_dir.is_dir()) else None
    types = Counter(read_first_line(groups_dir / g / "type") for g in groups)
    types.pop(None, None)
    # A group owned by VFIO reports "unmanaged"; the host's default is what the others use.
    usual = [t for t, _ in types.most_common() if t not in ("unmanaged", "blocked")]
    cmdline = read_first_line(root / "proc/cmdline") or ""
    return IommuFacts(
        enabled=enabled,
        vendor=_iommu_vendor(units),
        group_count=len(groups) if groups_dir.is_dir() else None,
        default_domain=usual[0] if usual else None,
        cmdline_flags=iommu_flags(cmdline),
    )


def iommu_flags(cmdline: str) -> tuple[str, ...]:
    """The IOMMU words of a kernel command line (also read from a pasted /proc/cmdline)."""
    return tuple(w for w in cmdline.split() if _IOMMU_FLAG.match(w))


def _iommu_vendor(units: list[str]) -> str | None:
    if not units:
        return None
    if any(u.startswith("dmar") for u in units):
        return "intel"
    if any(u.startswith("ivhd") for u in units):
        return "amd"
    return "other"
