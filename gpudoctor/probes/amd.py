"""AMD GPUs and ROCm from files alone: no ROCm tool, library or /dev/kfd access needed.

Reads, under `root`: the DRM cards of PCI vendor 0x1002 (/sys/class/drm/card*/device), the KFD
topology (/sys/class/kfd/kfd/topology/nodes/*/properties), the amdgpu module
(/sys/module/amdgpu, its version file when amdgpu-dkms provides one), the ROCm user space
(/opt/rocm/.info/version, /opt/rocm-*), /dev/kfd and /dev/dri/renderD* (owner, group and mode
judged against the user's uid and groups, passed in), the HIP/HSA environment and CDI specs
naming `amd.com/` devices. The optional `amdsmi` bindings are imported only inside a guard: the
package on PyPI must match the installed ROCm and fails at import without its library, so its
absence is recorded, never required.
"""

from __future__ import annotations

import importlib
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

from gpudoctor.facts import ProbeIssue
from gpudoctor.facts_amd import (
    AMD_VENDOR,
    AmdDeviceNode,
    AmdFacts,
    AmdPciGpu,
    KfdNode,
    gfx_name,
)
from gpudoctor.probes.files import (
    host_path,
    link_name,
    list_dir,
    natural_key,
    read_first_line,
    read_text,
)
from gpudoctor.probes.runtime import cdi_devices

PROBE = "amd"
KFD_TOPOLOGY = "sys/class/kfd/kfd/topology"
ROCM_ROOT = "opt/rocm"
CDI_DIRS = ("etc/cdi", "var/run/cdi", "run/cdi")
# A topology lists a handful of nodes per GPU die at most; the bound keeps a hostile tree cheap.
MAX_NODES = 256
_PROPERTY = re.compile(r"^(\w+)\s+(-?\d+)\s*$", re.MULTILINE)

User = tuple[int, Sequence[int]]  # (uid, group ids)
AmdsmiLoader = Callable[[], ModuleType]


def current_user() -> User:
    """The probing process's uid and groups (the real edge; tests pass their own)."""
    return os.geteuid(), sorted({os.getegid(), *os.getgroups()})


def probe_amd(
    root: Path,
    env: Mapping[str, str],
    *,
    user: User | None = None,
    amdsmi: AmdsmiLoader | None = None,
    include_amdsmi: bool = True,
) -> tuple[AmdFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    uid, groups = user if user is not None else current_user()
    pci = pci_gpus(root)
    kfd_present = (root / KFD_TOPOLOGY).is_dir()
    nodes = kfd_nodes(root, issues) if kfd_present else ()
    rocm_version = read_first_line(root / ROCM_ROOT / ".info/version")
    module = root / "sys/module/amdgpu"
    seen = bool(pci) or any(n.is_gpu for n in nodes)
    status, error, version = (
        _amdsmi(amdsmi) if (include_amdsmi and seen) else ("not_run", None, None)
    )
    facts = AmdFacts(
        pci_gpus=pci,
        kfd_present=kfd_present,
        kfd_nodes=nodes,
        amdgpu_loaded=module.is_dir(),
        amdgpu_version=read_first_line(module / "version"),
        rocm_path="/" + ROCM_ROOT if rocm_version else None,
        rocm_version=rocm_version,
        rocm_installs=tuple(
            "/opt/" + n for n in list_dir(root / "opt") if re.fullmatch(r"rocm-\d[\w.+-]*", n)
        ),
        device_nodes=device_nodes(root, uid, groups) if seen else (),
        user_uid=uid,
        user_groups=tuple(groups),
        hsa_override_gfx_version=env.get("HSA_OVERRIDE_GFX_VERSION"),
        hip_visible_devices=env.get("HIP_VISIBLE_DEVICES"),
        rocr_visible_devices=env.get("ROCR_VISIBLE_DEVICES"),
        ld_library_path_rocm=tuple(
            p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p and _in_rocm_tree(p)
        ),
        cdi_amd_devices=cdi_amd_devices(root),
        amdsmi_status=status,
        amdsmi_error=error,
        amdsmi_version=version,
    )
    return facts, issues


def pci_gpus(root: Path) -> tuple[AmdPciGpu, ...]:
    """Display-class (0x03xxxx) AMD functions behind /sys/class/drm/cardN: cards only, not the
    cardN-DP-1 connectors, each PCI function once (a render-only node has no card of its own)."""
    drm = root / "sys/class/drm"
    found: dict[str, AmdPciGpu] = {}
    for name in sorted(list_dir(drm), key=natural_key):
        if not re.fullmatch(r"card\d+", name):
            continue
        device = drm / name / "device"
        if (read_first_line(device / "vendor") or "").lower() != AMD_VENDOR:
            continue
        if not (read_first_line(device / "class") or "").lower().startswith("0x03"):
            continue
        address = _pci_address(device)
        key = address or name
        ras = ras_counts(read_text(device / "ras/umc_err_count", limit=4096))
        found.setdefault(
            key,
            AmdPciGpu(
                card=name,
                address=address,
                device_id=(read_first_line(device / "device") or "").lower() or None,
                revision=(read_first_line(device / "revision") or "").lower() or None,
                driver=link_name(device / "driver"),
                ecc_uncorrectable=ras.get("ue"),
                ecc_correctable=ras.get("ce"),
                compute_partition=read_first_line(device / "current_compute_partition"),
            ),
        )
    return tuple(found.values())


def ras_counts(text: str | None) -> dict[str, int]:
    """amdgpu's RAS error count file: "ue: N" and "ce: N" lines (newer kernels add "de: N")."""
    return {k: int(v) for k, v in re.findall(r"^(ue|ce|de): ?(\d+)\s*$", text or "", re.MULTILINE)}


def _pci_address(device: Path) -> str | None:
    """The PCI address the `device` link points to ("../../../0000:0c:00.0")."""
    name = link_name(device)
    if name and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", name):
        return name
    uevent = read_text(device / "uevent", limit=4096) or ""
    match = re.search(r"^PCI_SLOT_NAME=(\S+)", uevent, re.MULTILINE)
    return match.group(1).lower() if match else None


def kfd_nodes(root: Path, issues: list[ProbeIssue]) -> tuple[KfdNode, ...]:
    base = root / KFD_TOPOLOGY / "nodes"
    names = [n for n in list_dir(base) if n.isdecimal()]
    if len(names) > MAX_NODES:
        reason = f"{len(names)} KFD nodes; read the first {MAX_NODES}"
        issues.append(ProbeIssue(PROBE, "kfd_nodes", "kfd-too-many-nodes", reason))
    nodes = []
    for name in sorted(names, key=int)[:MAX_NODES]:
        text = read_text(base / name / "properties", limit=64 << 10)
        if text is None:
            where = host_path(root, base / name / "properties")
            issues.append(ProbeIssue(PROBE, "kfd_nodes", "kfd-properties-unreadable", where))
            continue
        props = parse_properties(text)
        gfx = props.get("gfx_target_version")
        if gfx is None:
            where = host_path(root, base / name / "properties")
            issues.append(ProbeIssue(PROBE, "kfd_nodes", "kfd-no-gfx-target-version", where))
            continue
        nodes.append(
            KfdNode(
                node=int(name),
                gfx_target_version=gfx,
                gfx_target=gfx_name(gfx),
                device_id=props.get("device_id"),
                location_id=props.get("location_id"),
                drm_render_minor=props.get("drm_render_minor"),
                simd_count=props.get("simd_count"),
            )
        )
    return tuple(nodes)


def parse_properties(text: str) -> dict[str, int]:
    """KFD's `properties` file: one `name value` pair a line, values decimal integers."""
    return {name: int(value) for name, value in _PROPERTY.findall(text)}


def device_nodes(root: Path, uid: int, groups: Sequence[int]) -> tuple[AmdDeviceNode, ...]:
    dri = root / "dev/dri"
    paths = [root / "dev/kfd"] + [dri / n for n in list_dir(dri) if n.startswith("renderD")]
    names = group_names(root)
    nodes = []
    for path in sorted(paths[:1], key=str) + sorted(paths[1:], key=lambda p: natural_key(p.name)):
        try:
            st = os.stat(path)
        except OSError:
            if path.name == "kfd":  # the one node every ROCm process needs: say it is absent
                nodes.append(AmdDeviceNode(path=host_path(root, path)))
            continue
        nodes.append(
            AmdDeviceNode(
                path=host_path(root, path),
                mode=f"{stat.S_IMODE(st.st_mode):04o}",
                uid=st.st_uid,
                gid=st.st_gid,
                group=names.get(st.st_gid),
                accessible=may_read_write(st, uid, groups),
            )
        )
    return tuple(nodes)


def may_read_write(st: os.stat_result, uid: int, groups: Sequence[int]) -> bool:
    """Would open(O_RDWR) pass the permission bits for this user? (root always does.) Judged
    from the bits, not os.access, so that a recorded tree says the same on any machine."""
    if uid == 0:
        return True
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid == uid:
        bits = (mode >> 6) & 0o6
    elif st.st_gid in groups:
        bits = (mode >> 3) & 0o6
    else:
        bits = mode & 0o6
    return bits == 0o6


def group_names(root: Path) -> dict[int, str]:
    """gid -> name from <root>/etc/group (in a container that is the container's list)."""
    names: dict[int, str] = {}
    for line in (read_text(root / "etc/group") or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[2].isdecimal():
            names.setdefault(int(parts[2]), parts[0])
    return names


def cdi_amd_devices(root: Path) -> tuple[str, ...]:
    found: set[str] = set()
    seen: set[str] = set()
    for rel in CDI_DIRS:
        for name in list_dir(root / rel):
            path = root / rel / name
            real = os.path.realpath(path)
            if not name.endswith((".yaml", ".yml", ".json")) or real in seen:
                continue
            seen.add(real)
            text = read_text(path)
            if text:
                found.update(cdi_devices(text, json_spec=name.endswith(".json"), vendor="amd.com/"))
    return tuple(sorted(found))


def _in_rocm_tree(path: str) -> bool:
    return bool(re.match(r"^/opt/rocm(-[\w.+-]+)?(/|$)", path))


def _amdsmi(loader: AmdsmiLoader | None) -> tuple[str, str | None, str | None]:
    """Import amdsmi (guarded) and initialise it; a failure is a status, never a crash."""
    try:
        module = loader() if loader is not None else _import_amdsmi()
    except ModuleNotFoundError as exc:
        return "not_installed", f"{exc}", None
    except Exception as exc:  # the binding raises its own errors when its library is missing
        return "import_failed", f"{type(exc).__name__}: {exc}"[:300], None
    version = getattr(module, "__version__", None)
    try:
        module.amdsmi_init()
        module.amdsmi_shut_down()
    except Exception as exc:
        return "init_failed", f"{type(exc).__name__}: {exc}"[:300], version
    return "ok", None, version


def _import_amdsmi() -> ModuleType:
    return importlib.import_module("amdsmi")
