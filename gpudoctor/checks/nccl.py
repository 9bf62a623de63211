"""Multi-node and NCCL checks: InfiniBand/RoCE ports, GPUDirect RDMA (nvidia_peermem), /dev/shm
and RLIMIT_MEMLOCK limits, NCCL environment variables that commonly break jobs, and the NCCL
library the framework would load.

Sources: NCCL environment variables and troubleshooting (shared memory in containers),
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html and
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html; GPUDirect RDMA
and nvidia-peermem, https://docs.nvidia.com/cuda/gpudirect-rdma/index.html.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.nccl_release import nccl_in_use, peermem_blind
from gpudoctor.checks.placement import gpu_count, not_recorded
from gpudoctor.facts_view import has_gpu
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.wording import gib

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

SHM_MIN_BYTES = 2**30  # NCCL's shared-memory transport needs far more than Docker's 64 MiB
_TRUE = frozenset({"1", "true", "yes", "on"})


def active_ports(facts: HostFacts) -> int:
    return sum(1 for p in facts.multigpu.ib_ports if p.state == "ACTIVE")


def check_ib_ports(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    ports = facts.multigpu.ib_ports
    if not facts.multigpu.collected and not ports:  # a pasted ibstat records only its ports
        return [finding("infiniband-ports", NA, not_recorded(facts))]
    if not ports:
        return [finding("infiniband-ports", NA, "no InfiniBand or RoCE adapter")]
    down = [p for p in ports if p.state != "ACTIVE"]
    ev = [("ports", len(ports)), ("active", len(ports) - len(down))]
    if down:
        shown = "; ".join(f"{p.device} port {p.port}: {p.state} ({p.phys_state})" for p in down)
        return [
            finding(
                "infiniband-ports",
                WARN,
                f"{len(down)} of {len(ports)} HCA port(s) not active: {shown}",
                detail="jobs that use these ports (NCCL_IB_HCA, one rail per GPU) fall back to "
                "fewer rails or to TCP sockets",
                fix="check cable and switch port (`ibstat`); phys state Disabled is set on the "
                "switch or with `ibportstate`; for RoCE bring the interface up (`ip link set "
                "<dev> up`)",
                evidence=ev,
            )
        ]
    rates = sorted({p.rate for p in ports if p.rate})
    layers = sorted({p.link_layer for p in ports if p.link_layer})
    return [
        finding(
            "infiniband-ports",
            OK,
            f"{len(ports)} port(s) active ({', '.join(rates) or 'rate unknown'}; "
            f"{', '.join(layers) or 'link layer unknown'})",
            evidence=ev,
        )
    ]


def check_gpudirect_rdma(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.multigpu.ib_ports or not has_gpu(facts):
        return [finding("gpudirect-rdma", NA, "no RDMA adapter next to a GPU")]
    loaded = "nvidia_peermem" in facts.kernel.modules_loaded
    ev = [("nvidia_peermem", loaded), ("kernel_module_flavor", facts.kernel.nvidia_module_flavor)]
    if loaded:
        blind = peermem_blind(facts, matrix)
        nccl = nccl_in_use(facts)
        if blind is not None and nccl is not None:
            return [
                finding(
                    "gpudirect-rdma",
                    WARN,
                    f"nvidia_peermem is loaded, but NCCL {nccl.version} ({nccl.where}) looks "
                    "only for the old nv_peer_mem module: it turns GPUDirect RDMA off",
                    detail="no nv_mem client in /sys/kernel/mm/memory_peers, and this NCCL "
                    f"does not check /sys/module/nvidia_peermem ({blind.source}); its log says "
                    "'GPU Direct RDMA Disabled for HCA'",
                    fix=f"use NCCL {blind.fixed_in} or newer (a framework release that pins a "
                    "newer nvidia-nccl wheel)",
                    evidence=[*ev, ("nccl", nccl.version)],
                )
            ]
        return [finding("gpudirect-rdma", OK, "nvidia_peermem loaded", evidence=ev)]
    fix = (
        "sudo modprobe nvidia-peermem; to load it at boot: echo nvidia-peermem | sudo tee "
        "/etc/modules-load.d/nvidia-peermem.conf"
    )
    if facts.kernel.nvidia_module_flavor == "open":
        return [
            finding(
                "gpudirect-rdma",
                INFO,
                "nvidia_peermem not loaded; the open kernel modules give NCCL DMA-BUF instead "
                "(Linux 5.12 or newer)",
                fix=fix,
                evidence=ev,
            )
        ]
    return [
        finding(
            "gpudirect-rdma",
            WARN,
            "nvidia_peermem not loaded: GPUDirect RDMA is off, so NCCL stages every transfer "
            "through host memory",
            fix=fix,
            evidence=ev,
        )
    ]


def check_shm(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    size = facts.multigpu.shm_bytes
    if gpu_count(facts) < 2:
        return [finding("shm-size", NA, "fewer than two GPUs")]
    if size is None and not facts.multigpu.collected:  # a report may show /dev/shm alone
        return [finding("shm-size", NA, not_recorded(facts))]
    if size is None:
        return [finding("shm-size", UNKNOWN, "size of /dev/shm unknown")]
    ev = [("shm_bytes", size)]
    if size < SHM_MIN_BYTES:
        return [
            finding(
                "shm-size",
                WARN,
                f"/dev/shm is {size / 2**20:.0f} MiB: NCCL dies with 'Bus error' or 'unhandled "
                "system error' on a multi-GPU job",
                detail="Docker gives containers 64 MiB of /dev/shm; NCCL's shared-memory "
                "transport and DataLoader workers need gigabytes",
                fix="Docker: `docker run --shm-size=16g ...` or `--ipc=host`; Kubernetes: mount "
                "an `emptyDir: {medium: Memory, sizeLimit: 16Gi}` volume at /dev/shm",
                evidence=ev,
            )
        ]
    return [finding("shm-size", OK, f"/dev/shm is {gib(size)}", evidence=ev)]


def check_memlock(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    m = facts.multigpu
    if not m.ib_ports:
        return [finding("memlock-limit", NA, "no RDMA adapter: memory is not registered")]
    if not m.collected:
        return [finding("memlock-limit", NA, not_recorded(facts))]
    if m.memlock_unlimited:
        return [finding("memlock-limit", OK, "RLIMIT_MEMLOCK unlimited")]
    if m.memlock_bytes is None:
        return [finding("memlock-limit", UNKNOWN, "RLIMIT_MEMLOCK unknown")]
    return [
        finding(
            "memlock-limit",
            WARN,
            f"RLIMIT_MEMLOCK is {m.memlock_bytes / 2**20:.0f} MiB: RDMA cannot register (pin) "
            "NCCL's buffers and falls back or fails",
            fix="Docker: `--ulimit memlock=-1:-1`; host: `* - memlock unlimited` in "
            "/etc/security/limits.conf, and LimitMEMLOCK=infinity for systemd services",
            evidence=[("memlock_bytes", m.memlock_bytes)],
        )
    ]


def missing_interfaces(spec: str, interfaces: tuple[str, ...]) -> list[str]:
    """Entries of an NCCL_SOCKET_IFNAME include list that match no interface. Syntax (NCCL
    env docs): comma-separated prefixes; `=` before a name means an exact name; a leading `^`
    makes the list an exclude list (nothing can be missing then)."""
    if spec.startswith("^"):
        return []
    missing = []
    for raw in filter(None, (s.strip() for s in spec.split(","))):
        exact = raw.startswith("=")
        name = raw.lstrip("=")
        if not any((i == name) if exact else i.startswith(name) for i in interfaces):
            missing.append(raw)
    return missing


def check_nccl_env(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.multigpu.collected:
        return [finding("nccl-env", NA, not_recorded(facts))]
    env = {v.name: v.value for v in facts.multigpu.nccl_env}
    found = []
    if env.get("NCCL_P2P_DISABLE", "").lower() in _TRUE and gpu_count(facts) >= 2:
        found.append(
            finding(
                "nccl-env",
                WARN,
                "NCCL_P2P_DISABLE is set: GPUs exchange data through host memory, not NVLink/P2P",
                fix="unset NCCL_P2P_DISABLE (set it per job only to work around a P2P fault)",
                evidence=[("NCCL_P2P_DISABLE", env["NCCL_P2P_DISABLE"])],
                subject="NCCL_P2P_DISABLE",
            )
        )
    if env.get("NCCL_IB_DISABLE", "").lower() in _TRUE and facts.multigpu.ib_ports:
        found.append(
            finding(
                "nccl-env",
                WARN,
                "NCCL_IB_DISABLE is set on a host with InfiniBand/RoCE: multi-node traffic "
                "goes over TCP sockets",
                fix="unset NCCL_IB_DISABLE",
                evidence=[("NCCL_IB_DISABLE", env["NCCL_IB_DISABLE"])],
                subject="NCCL_IB_DISABLE",
            )
        )
    spec = env.get("NCCL_SOCKET_IFNAME")
    if spec and spec != "<redacted>" and facts.multigpu.net_interfaces:
        missing = missing_interfaces(spec, facts.multigpu.net_interfaces)
        if missing:
            have = ", ".join(facts.multigpu.net_interfaces)
            found.append(
                finding(
                    "nccl-env",
                    ERROR,
                    f"NCCL_SOCKET_IFNAME={spec} names no interface here ({', '.join(missing)}): "
                    "NCCL fails with 'no socket interface found'",
                    fix=f"set NCCL_SOCKET_IFNAME to one of: {have} (a prefix such as `eth` or "
                    "`=eth0` for an exact name)",
                    evidence=[("NCCL_SOCKET_IFNAME", spec), ("interfaces", have)],
                    subject="NCCL_SOCKET_IFNAME",
                )
            )
    if found:
        return found
    shown = ", ".join(sorted(env)) or "none"
    return [finding("nccl-env", OK, f"no NCCL variable that breaks jobs (set: {shown})")]


def check_nccl_library(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    bundled = [
        (fw.name, b.package, b.version)
        for fw in facts.frameworks
        for b in fw.bundled
        if b.package.startswith("nvidia-nccl")
    ]
    if not bundled:
        return [finding("nccl-library", NA, "no framework brings its own NCCL wheel")]
    name, package, version = bundled[0]
    shadows = [
        lib
        for lib in facts.multigpu.nccl_on_library_path
        if lib.version is None or versions.release(lib.version) != versions.release(version)
    ]
    ev = [("wheel", f"{package} {version}"), ("ld_library_path", [s.path for s in shadows])]
    if shadows:
        lib = shadows[0]
        return [
            finding(
                "nccl-library",
                WARN,
                f"{name} brings NCCL {version} ({package}), but LD_LIBRARY_PATH holds "
                f"{lib.path} (NCCL {lib.version or 'unknown'}), which may load instead",
                detail="the dynamic loader searches LD_LIBRARY_PATH before a library's "
                "RUNPATH; a different NCCL than the framework was built and tested with "
                "causes hangs and 'undefined symbol' errors",
                fix=f"remove {lib.path.rsplit('/', 1)[0]} from LD_LIBRARY_PATH for the job, "
                "or install the NCCL version the framework brings there",
                evidence=ev,
            )
        ]
    return [finding("nccl-library", OK, f"{name} uses its own NCCL {version}", evidence=ev)]


CHECKS = (
    check_ib_ports,
    check_gpudirect_rdma,
    check_shm,
    check_memlock,
    check_nccl_env,
    check_nccl_library,
)
