"""Device inventory checks (driver area): device nodes, GPU counts that must agree across PCI,
NVML and /dev, GPUs NVML has lost, and the NVML bindings themselves.

Never trust one source: a GPU on the PCI bus that NVML does not count, or an NVML GPU with no
/dev/nvidiaN node, is how half-broken hosts show themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts_view import live_gpus, nvidia_pci_gpus, nvml_ok
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


def check_device_nodes(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not nvml_ok(facts) or facts.platform.wsl:
        why = "WSL uses /dev/dxg" if facts.platform.wsl else "needs a working driver"
        return [finding("device-nodes", NA, f"device nodes not checked: {why}")]
    if facts.report is not None and not facts.kernel.device_nodes:
        return [finding("device-nodes", UNKNOWN, "the report does not show /dev/nvidia*")]
    nodes = {n.path: n for n in facts.kernel.device_nodes}
    wanted = ["/dev/nvidiactl"] + [
        f"/dev/nvidia{g.minor_number}" for g in live_gpus(facts) if g.minor_number is not None
    ]
    missing = [p for p in wanted if p not in nodes]
    denied = sorted(p for p, n in nodes.items() if n.readable is False or n.writable is False)
    ev = [("device_nodes", sorted(nodes)), ("missing", missing), ("not_read_writable", denied)]
    if missing or denied:
        what = (f"missing {', '.join(missing)}" if missing else "") + (
            ("; " if missing else "") + f"not read/writable: {', '.join(denied)}" if denied else ""
        )
        return [
            finding(
                "device-nodes",
                ERROR,
                f"GPU device nodes: {what}",
                fix="create them with `sudo nvidia-modprobe -c=0 -u`; for permissions add the "
                "user to the group owning /dev/nvidia* (`ls -l /dev/nvidia*`)",
                evidence=ev,
            )
        ]
    if "/dev/nvidia-uvm" not in nodes:
        return [
            finding(
                "device-nodes",
                WARN,
                "/dev/nvidia-uvm missing: CUDA needs it",
                detail="nvidia_uvm is loaded on first CUDA use by the setuid nvidia-modprobe; "
                "inside containers or without it CUDA fails to initialise",
                fix="sudo modprobe nvidia-uvm && sudo nvidia-modprobe -u -c=0",
                evidence=ev,
            )
        ]
    return [finding("device-nodes", OK, "device nodes present and usable", evidence=ev)]


def check_gpu_count(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not nvml_ok(facts):
        return [finding("gpu-count", NA, "GPU count needs a working NVML")]
    pci = [d for d in nvidia_pci_gpus(facts) if d.driver == "nvidia"]
    nvml = facts.nvml.device_count if facts.nvml.device_count is not None else len(facts.nvml.gpus)
    nodes = [
        n.path for n in facts.kernel.device_nodes if n.path.removeprefix("/dev/nvidia").isdecimal()
    ]
    ev = [
        ("pci_gpus_bound_to_nvidia", len(pci)),
        ("nvml_device_count", nvml),
        ("dev_nvidia_nodes", len(nodes)),
    ]
    # A source the probe did not record (no sysfs PCI view, no /dev listing) does not vote.
    counts = {nvml}
    counts |= {len(pci)} if facts.kernel.pci_devices else set()
    counts |= {len(nodes)} if facts.kernel.device_nodes else set()
    if len(counts) <= 1:
        return [finding("gpu-count", OK, f"{nvml} GPU(s) on PCI, in NVML and in /dev", evidence=ev)]
    in_container = facts.platform.container is not None or facts.platform.wsl
    if in_container and nvml == len(nodes):
        return [
            finding(
                "gpu-count",
                INFO,
                f"{nvml} of {len(pci)} GPUs visible in this container",
                detail="containers see the host's PCI bus but only the GPUs passed to them",
                evidence=ev,
            )
        ]
    return [
        finding(
            "gpu-count",
            WARN,
            f"GPU counts disagree: PCI {len(pci)}, NVML {nvml}, /dev {len(nodes)}",
            detail="a GPU bound to nvidia but missing from NVML has usually fallen off the bus",
            fix="check `sudo dmesg | grep -i -e xid -e 'fallen off'`; drain and reboot; RMA if "
            "it recurs",
            evidence=ev,
        )
    ]


def check_gpu_lost(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not nvml_ok(facts):
        return [finding("gpu-lost", NA, "needs a working NVML")]
    lost = [g for g in facts.nvml.gpus if g.lost]
    failing = [g for g in facts.nvml.gpus if not g.lost and g.failed_readings]
    if not lost and not failing:
        return [finding("gpu-lost", OK, "no GPU lost")]
    return [
        finding(
            "gpu-lost",
            ERROR,
            f"lost (bus {g.pci_bus_id or 'unknown'}): {g.error or 'no reply'}",
            detail="the GPU fell off the bus or hung; CUDA cannot use it until a reset",
            fix="drain the node and reboot; read `sudo dmesg | grep -i xid`; RMA if it recurs",
            evidence=[("pci_bus_id", g.pci_bus_id), ("error", g.error)],
            subject=f"GPU {g.index}",
        )
        for g in lost
    ] + [_failed_readings(g) for g in failing]


def _failed_readings(g: GpuFacts) -> Finding:
    """A GPU NVML still answers but whose readings it answers with an error (nvidia-smi's
    "ERR!" / "[Unknown Error]"): a degraded GPU, not yet a lost one."""
    readings = ", ".join(g.failed_readings)
    fan_only = set(g.failed_readings) == {"fan speed"}
    return finding(
        "gpu-lost",
        WARN,
        f"NVML cannot read its {readings} (bus {g.pci_bus_id or 'unknown'})",
        detail="nvidia-smi prints ERR! or [Unknown Error] where NVML answered a query of the GPU "
        "with an error: "
        + (
            "a fan that cannot be read has stopped, is disconnected or its controller failed"
            if fan_only
            else "the GPU still answers, but a sensor or the board does not report: a hardware "
            "fault, which can end in the GPU falling off the bus"
        ),
        fix="check the GPU's fans, power cables and seating; read `sudo dmesg | grep -i xid`; "
        f"reset the GPU (`sudo nvidia-smi -i {g.index} -r`) or reboot, and if the readings still "
        "fail, have the board repaired (RMA)",
        evidence=[("pci_bus_id", g.pci_bus_id), ("failed_readings", list(g.failed_readings))],
        subject=f"GPU {g.index}",
    )


def check_bindings(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    n = facts.nvml
    ev = [("bindings_package", n.bindings_package), ("bindings_version", n.bindings_version)]
    if n.bindings_shadowed:
        return [
            finding(
                "nvml-bindings",
                WARN,
                "the unofficial `pynvml` package shadows nvidia-ml-py",
                fix="pip uninstall -y pynvml && pip install --force-reinstall nvidia-ml-py",
                evidence=ev,
            )
        ]
    if n.bindings_package is None:
        return [finding("nvml-bindings", NA, "bindings not recorded", evidence=ev)]
    return [
        finding(
            "nvml-bindings",
            OK,
            f"{n.bindings_package} {n.bindings_version or ''}".strip(),
            evidence=ev,
        )
    ]


CHECKS = (check_device_nodes, check_gpu_count, check_gpu_lost, check_bindings)
