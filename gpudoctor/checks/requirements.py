"""`--require` expressions: parse (errors point at the bad part) and judge against the facts.

Grammar: KEY OP VALUE, e.g. `driver>=550`, `cuda>=12.1`, `gpus>=2`, `memory>=40GiB`,
`compute_capability>=8.0`, `mig=off`, `iommu=on`, `runtime=nvidia`, and for multi-GPU nodes
`nvlink=ok`, `fabric=ok`, `p2p=ok`, `shm>=1GiB`, `ib>=4` (active ports), `xid=none`.
OP is one of >=, <=, >, <, ==, !=, = (= is ==). Versions compare on the components the
requirement gives: `driver>=550` holds for 550.90.07, `driver==550` too, `cuda>12` means 13 or
newer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks import links, xid
from gpudoctor.checks.base import Requirement, Value, finding
from gpudoctor.checks.nccl import active_ports
from gpudoctor.errors import UsageError
from gpudoctor.facts_view import driver_version, has_gpu, live_gpus, nvml_ok
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.inputs import did_you_mean
from gpudoctor.matrix.queries import mig_gpu_for, newest_cuda_for_driver
from gpudoctor.wording import gib, gpu_label

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

KEYS = (
    "driver",
    "cuda",
    "gpus",
    "memory",
    "compute_capability",
    "mig",
    "iommu",
    "runtime",
    "nvlink",
    "fabric",
    "p2p",
    "shm",
    "ib",
    "xid",
    "amd_gpus",
)
_SWITCHES = {
    "mig": ("on", "off"),
    "iommu": ("on", "off"),
    "nvlink": ("ok",),
    "fabric": ("ok",),
    "p2p": ("ok",),
    "xid": ("none",),
}
_EXPR = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*("
    + "|".join(re.escape(op) for op in versions.OPERATORS)
    + r")\s*(\S.*?)\s*$"
)
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB|TiB|TB)$", re.IGNORECASE)
_UNITS = {"gib": 2**30, "gb": 10**9, "mib": 2**20, "mb": 10**6, "tib": 2**40, "tb": 10**12}
_HINT = "examples: --require 'driver>=550' --require 'gpus>=8' --require 'memory>=40GiB'"


def parse_requirement(text: str) -> Requirement:
    """Parse one expression; UsageError names the bad part and the expression."""
    match = _EXPR.match(text)
    if match is None:
        raise UsageError(
            f"{text!r} is not a requirement: expected KEY OP VALUE with OP one of "
            f"{' '.join(versions.OPERATORS)}",
            hint=_HINT,
        )
    key, op, raw = match.group(1).lower().replace("-", "_"), match.group(2), match.group(3)
    op = "==" if op == "=" else op
    if key not in KEYS:
        guess = did_you_mean(key, KEYS)
        raise UsageError(
            f"unknown key {match.group(1)!r} in {text!r}; keys: {', '.join(KEYS)}",
            hint=f"did you mean {guess}? --require '{guess}{match.group(2)}{raw}'"
            if guess
            else _HINT,
        )
    return Requirement(text=text, key=key, op=op, value=_parse_value(key, op, raw, text))


def _parse_value(key: str, op: str, raw: str, text: str) -> Value:
    if key in _SWITCHES or key == "runtime":
        if op not in ("==", "!="):
            raise UsageError(f"{key} takes = or != only, not {op!r} in {text!r}", hint=_HINT)
        value = raw.lower()
        if key in _SWITCHES and value not in _SWITCHES[key]:
            allowed = " or ".join(_SWITCHES[key])
            raise UsageError(f"{raw!r} is not {allowed} in {text!r}", hint=_HINT)
        return value
    if key in ("memory", "shm"):
        mem = _MEMORY.match(raw)
        if mem is None:
            raise UsageError(
                f"{raw!r} is not a memory size in {text!r}; use a number and GiB, GB, MiB or MB "
                "(40GiB)",
                hint=_HINT,
            )
        return float(mem.group(1)) * _UNITS[mem.group(2).lower()]
    if key in ("gpus", "ib", "amd_gpus"):
        if not raw.isdecimal():
            raise UsageError(f"{raw!r} is not a whole number in {text!r}", hint=_HINT)
        return (int(raw),)
    try:
        return versions.numeric(raw)
    except ValueError:
        raise UsageError(f"{raw!r} is not a version in {text!r}", hint=_HINT) from None


def check_requirements(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    return [judge(facts, matrix, r) for r in intent.requirements]


def judge(facts: HostFacts, matrix: Matrix, req: Requirement) -> Finding:
    """One requirement: ok when met, error when not, unknown when the fact is unknown."""
    code = f"requirement-{req.key.replace('_', '-')}"
    actual, reason = _ACTUAL[req.key](facts, matrix)
    ev = [("requirement", req.text), ("actual", reason)]
    if actual is None:
        return finding(
            code,
            Severity.UNKNOWN,
            f"cannot tell ({reason})",
            evidence=ev,
            subject=req.text,
        )
    values = actual if isinstance(actual, list) else [actual]
    if req.key == "runtime":  # a set of registered runtimes: membership, not equality
        met = (req.value in values) == (req.op == "==")
    elif isinstance(req.value, str):
        met = bool(values) and all((v == req.value) == (req.op == "==") for v in values)
    else:
        met = bool(values) and all(
            isinstance(v, (tuple, float)) and versions.compare(v, req.op, req.value) for v in values
        )
    sev = Severity.OK if met else Severity.ERROR
    verdict = "met" if met else "not met"
    fix = "" if met else _FIX[req.key]
    if not met and req.key == "runtime" and facts.platform.systemd is False:
        fix = fix.replace("sudo systemctl restart docker", "then restart dockerd (no systemd here)")
    if not met and values == ["n/a"]:
        # The host has no such part (no NVSwitch, no NVLink): nothing to install or repair.
        fix = (
            f"This host has none ({reason}): run where `{req.text}` can hold (a node that has "
            f"it), or drop --require '{req.text}'."
        )
    return finding(code, sev, f"{verdict} ({reason})", fix=fix, evidence=ev, subject=req.text)


# What to do about an unmet requirement, per key: change the host, or run where it holds.
_FIX = {
    "driver": "Install a newer NVIDIA driver (your distribution's nvidia-driver package or "
    "NVIDIA's repository), or run on a host that has one.",
    "cuda": "Install a driver new enough for that CUDA (`gpudoctor matrix list` shows each CUDA "
    "release's minimum driver), or run on a host that has one.",
    "gpus": "Run on a host with that many NVIDIA GPUs; `gpudoctor check` says why a GPU that is "
    "present is not usable.",
    "memory": "Run on GPUs with that much memory (or free it: another process may hold it).",
    "compute_capability": "Run on newer GPUs (`gpudoctor matrix list` lists the architectures "
    "and their compute capabilities).",
    "mig": "Switch MIG mode: `sudo nvidia-smi -i GPU -mig 0` (off) or `-mig 1` (on), then reset "
    "the GPU (`sudo nvidia-smi -i GPU -r`) or reboot.",
    "iommu": "Enable VT-d / AMD-Vi in the firmware and add `intel_iommu=on iommu=pt` (or "
    "`amd_iommu=on`) to the kernel command line, then reboot.",
    "runtime": "Install the NVIDIA Container Toolkit and register its runtime: `sudo nvidia-ctk "
    "runtime configure --runtime=docker && sudo systemctl restart docker`.",
    "nvlink": "See nvlink-state and nvlink-errors: reset the GPU (`sudo nvidia-smi -i N -r`) or "
    "reboot; a link that stays down needs hardware service.",
    "fabric": "See fabric-manager: install nvidia-fabricmanager of the driver's version and start "
    "it (`sudo systemctl enable --now nvidia-fabricmanager`).",
    "p2p": "See p2p-topology: disable PCIe ACS P2P redirect, or set the IOMMU to passthrough "
    "(`iommu=pt`).",
    "shm": "Give /dev/shm more room: Docker `--shm-size=16g` or `--ipc=host`; Kubernetes an "
    "`emptyDir: {medium: Memory}` volume at /dev/shm.",
    "ib": "Bring the InfiniBand/RoCE ports up (`ibstat`; cable, subnet manager, driver), or run "
    "on a node that has them.",
    "xid": "See xid-history for the action each XID needs: restart the application, reset the "
    "GPU, or drain and reboot the node.",
    "amd_gpus": "Run on a host with that many AMD GPUs; the AMD GPUs and ROCm area says why one "
    "present is not in the KFD topology (amd-driver).",
}


Actual = tuple[object, str]


def _driver(facts: HostFacts, matrix: Matrix) -> Actual:
    version = driver_version(facts)
    return versions.release(version), f"driver {version}" if version else "no driver version"


def _cuda(facts: HostFacts, matrix: Matrix) -> Actual:
    if facts.nvml.cuda_driver_version:
        return versions.release(facts.nvml.cuda_driver_version), (
            f"the driver supports CUDA {facts.nvml.cuda_driver_version}"
        )
    driver = driver_version(facts)
    if driver is None:
        return None, "no driver version"

    release = newest_cuda_for_driver(matrix, driver)
    if release is None:
        return None, f"driver {driver} is older than every CUDA in the matrix"
    return versions.release(release.version), f"driver {driver} supports CUDA {release.major_minor}"


def _gpus(facts: HostFacts, matrix: Matrix) -> Actual:
    if nvml_ok(facts):
        n = len(live_gpus(facts))
        return (n,), f"{n} GPU(s)"
    if not has_gpu(facts):
        return (0,), "no NVIDIA GPU"
    return None, f"NVML unusable ({facts.nvml.status})"


def _per_gpu(
    attr: str, parse: Callable[[object], object], show: Callable[[object], str]
) -> Callable[[HostFacts, Matrix], Actual]:
    """A per-GPU fact: every GPU must meet the requirement; no GPU at all does not."""

    def actual(facts: HostFacts, matrix: Matrix) -> Actual:
        gpus = live_gpus(facts)
        if not gpus:
            return ([], "no GPU") if not has_gpu(facts) else (None, "no GPU visible to NVML")
        raw = [getattr(g, attr) for g in gpus]
        unknown = [g.index for g, v in zip(gpus, raw) if v is None]
        if unknown:
            return None, f"{attr} of GPU {unknown[0]} unknown"
        shown = _by_value([(g.index, show(v)) for g, v in zip(gpus, raw)])
        return [parse(v) for v in raw], shown

    return actual


def _mig(facts: HostFacts, matrix: Matrix) -> Actual:
    gpus = live_gpus(facts)
    if not gpus:
        return ([], "no GPU") if not has_gpu(facts) else (None, "no GPU visible to NVML")
    modes = []
    for g in gpus:
        if g.mig_mode_current is None and g.name and mig_gpu_for(matrix, g.name) is None:
            modes.append("off")  # not MIG-capable: MIG is off by construction
        elif g.mig_mode_current is None:
            return None, f"MIG mode of GPU {g.index} unknown"
        else:
            modes.append("on" if g.mig_mode_current else "off")
    return modes, _by_value([(g.index, f"MIG {m}") for g, m in zip(gpus, modes)])


def _by_value(values: list[tuple[int, str]]) -> str:
    """ "GPU 0-7: 79.6 GiB" rather than eight times the same value."""
    groups: dict[str, list[int]] = {}
    for index, shown in values:
        groups.setdefault(shown, []).append(index)
    return "; ".join(f"{gpu_label(idx)}: {shown}" for shown, idx in groups.items())


def _iommu(facts: HostFacts, matrix: Matrix) -> Actual:
    enabled = facts.platform.iommu.enabled
    if enabled is None:
        return None, "IOMMU state unknown"
    return ("on" if enabled else "off"), f"IOMMU {'on' if enabled else 'off'}"


def _runtime(facts: HostFacts, matrix: Matrix) -> Actual:
    r = facts.container_runtime
    names = {*r.runtimes, *r.daemon_json_runtimes}
    if r.cdi_nvidia_devices:
        names.add("cdi")
    if not names and r.docker_reachable is not True:
        return None, "Docker runtimes unknown (Docker not reachable)"
    shown = ", ".join(sorted(names)) or "none"
    return sorted(names), f"runtimes: {shown}"


def _verdict(name: str) -> Callable[[HostFacts, Matrix], Actual]:
    """A multi-GPU verdict ("ok", "degraded", ...) computed by the check that owns it."""

    def actual(facts: HostFacts, matrix: Matrix) -> Actual:
        verdicts = {
            "nvlink": links.nvlink_verdict,
            "fabric": links.fabric_verdict,
            "p2p": links.p2p_verdict,
            "xid": xid.xid_verdict,
        }
        value, reason = verdicts[name](facts)
        return value, reason

    return actual


def _shm(facts: HostFacts, matrix: Matrix) -> Actual:
    size = facts.multigpu.shm_bytes
    if size is None:
        return None, "size of /dev/shm unknown"
    return float(size), f"/dev/shm {gib(size)}"


def _ib(facts: HostFacts, matrix: Matrix) -> Actual:
    if not facts.multigpu.collected:
        return None, "HCA ports not recorded in this snapshot"
    n = active_ports(facts)
    return (n,), f"{n} active InfiniBand/RoCE port(s)"


def _amd_gpus(facts: HostFacts, matrix: Matrix) -> Actual:
    """The AMD GPUs ROCm sees (KFD GPU nodes: one per die or partition)."""
    nodes = len(facts.amd.gpu_nodes)
    kfd = next((n for n in facts.amd.device_nodes if n.path == "/dev/kfd"), None)
    if nodes and facts.amd.device_nodes and (kfd is None or kfd.mode is None):
        # sysfs shows the host's GPUs in a container too: without /dev/kfd HIP finds none.
        return (0,), f"{nodes} AMD GPU(s) in the KFD topology, but no /dev/kfd: ROCm sees none"
    if nodes and kfd is not None and kfd.accessible is False:
        return (0,), f"{nodes} AMD GPU(s) in the KFD topology, but this user cannot open /dev/kfd"
    if facts.report is not None:
        # A pasted rocm-smi/amd-smi names some GPUs by device id only (no gfx target): those
        # are cards, not KFD nodes, and each GPU of a report is one or the other.
        listed = nodes + len(facts.amd.pci_gpus)
        return (listed,), f"{listed} AMD GPU(s) in the report"
    if nodes or facts.amd.kfd_present:
        return (nodes,), f"{nodes} AMD GPU(s) in the KFD topology"
    if facts.amd.pci_gpus:
        return (0,), f"{len(facts.amd.pci_gpus)} AMD GPU(s) on the PCI bus, none in KFD"
    return (0,), "no AMD GPU"


_ACTUAL: dict[str, Callable[[HostFacts, Matrix], Actual]] = {
    "driver": _driver,
    "cuda": _cuda,
    "gpus": _gpus,
    "memory": _per_gpu("memory_total_bytes", float, gib),  # type: ignore[arg-type]
    "compute_capability": _per_gpu("compute_capability", versions.release, str),
    "mig": _mig,
    "iommu": _iommu,
    "runtime": _runtime,
    "nvlink": _verdict("nvlink"),
    "fabric": _verdict("fabric"),
    "p2p": _verdict("p2p"),
    "shm": _shm,
    "ib": _ib,
    "xid": _verdict("xid"),
    "amd_gpus": _amd_gpus,
}
