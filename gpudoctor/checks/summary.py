"""One headline per area for the doctor-style text report ("NVIDIA driver 550.90.07 ..."),
computed from the facts so that reporters stay presentation only."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from gpudoctor.checks.jetson import jetson_release
from gpudoctor.checks.platform import where
from gpudoctor.checks.runtime import docker_absence
from gpudoctor.facts_view import (
    driver_version,
    has_gpu,
    live_gpus,
    nvidia_pci_gpus,
    nvml_ok,
    passthrough_only,
)

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
    from gpudoctor.facts import HostFacts


def headlines(facts: HostFacts, intent: Intent) -> dict[str, str]:
    return {
        "report": _report(facts),
        "driver": _driver(facts),
        "gpu": _gpus(facts),
        "platform": _platform(facts),
        "runtime": _runtime(facts),
        "software": _software(facts),
        "multigpu": _multigpu(facts),
        "amd": _amd(facts),
        "intent": _intent(intent),
        "requirements": f"{len(intent.requirements)} requirement(s)",
    }


def _report(facts: HostFacts) -> str:
    report = facts.report
    if report is None:
        return ""
    return f"{report.source} ({len(report.sections)} section(s) recognised)"


def _driver(facts: HostFacts) -> str:
    jetson = jetson_release(facts)
    if jetson is not None and not nvml_ok(facts):
        jetpack = facts.platform.jetpack_release
        cuda = facts.nvml.cuda_driver_version
        parts = [f"L4T {jetson}"] if jetson != "unknown" else []
        parts += [f"JetPack {jetpack}"] if jetpack else []
        return (
            "Jetson"
            + (f" ({', '.join(parts)})" if parts else "")
            + (f", supports CUDA {cuda}" if cuda else "")
            + "; no NVML there"
        )
    if not has_gpu(facts):
        if facts.report is None:
            amd = " (AMD GPUs: see AMD GPUs and ROCm)" if facts.amd.seen else ""
            return "not checked: no NVIDIA GPU on this host" + amd
        named = driver_version(facts)  # an NGC refusal or a prose list names the driver only
        return f"{named} (the report lists no GPU)" if named else "no GPU in the report"
    if passthrough_only(facts):
        return "none expected: the GPUs are bound to vfio-pci for passthrough"
    version = driver_version(facts)
    if version is None:
        return f"not working (NVML: {facts.nvml.status})"
    flavor = facts.kernel.nvidia_module_flavor
    cuda = facts.nvml.cuda_driver_version
    return (
        f"{version}"
        + (f" ({flavor} kernel module)" if flavor else "")
        + (f", supports CUDA {cuda}" if cuda else "")
    )


def _gpus(facts: HostFacts) -> str:
    gpus = live_gpus(facts)
    if not gpus:
        pci = len(nvidia_pci_gpus(facts))
        if pci:
            return f"{pci} on the PCI bus, none usable"
        if jetson_release(facts) is not None and not nvml_ok(facts):
            return "a Jetson's integrated GPU, which no NVML lists"
        return "no NVIDIA GPU (AMD GPUs: see AMD GPUs and ROCm)" if facts.amd.seen else "none"
    kinds = Counter((g.name or "unknown GPU", g.compute_capability) for g in gpus)
    return "; ".join(
        f"{n} × {name}"  # noqa: RUF001 - the multiplication sign is meant
        + (f", compute capability {cc}" if cc else "")
        for (name, cc), n in kinds.items()
    )


def _platform(facts: HostFacts) -> str:
    p = facts.platform
    os_name = p.os_pretty or " ".join(x for x in (p.os_id, p.os_version) if x) or "unknown OS"
    kernel = f", kernel {facts.kernel.release}" if facts.kernel.release else ""
    # a pasted Kubernetes object (node, pod, scheduler resource) outside any container: the
    # cluster is what the report is about ("in a container (Kubernetes)" says it otherwise)
    cluster = ", Kubernetes" if p.kubernetes and not p.container else ""
    return f"{os_name}{kernel}, {where(facts)}{cluster}"


def _runtime(facts: HostFacts) -> str:
    r = facts.container_runtime
    if r.docker_reachable:
        names = ", ".join(r.runtimes) or "none"
        return f"Docker {r.docker_version or ''} (runtimes: {names})".replace("  ", " ")
    if r.daemon_json_runtimes:
        return "Docker not reachable; daemon.json runtimes: " + ", ".join(r.daemon_json_runtimes)
    # what else of the container stack is known (a paste often shows only the toolkit or a
    # Kubernetes node's CRI config), before what is missing of Docker
    parts = [f"NVIDIA Container Toolkit {r.toolkit_version}"] if r.toolkit_version else []
    if r.cri_engine:
        parts.append(f"{r.cri_engine} (default runtime: {r.cri_default_runtime or 'its own'})")
    if r.singularity_version:
        parts.append(r.singularity_version)
    absent = docker_absence(facts)
    if not parts:
        return absent
    return "; ".join([*parts, "Docker not in the report" if facts.report else absent])


def _software(facts: HostFacts) -> str:
    parts = [f"{fw.name} {fw.version}" for fw in facts.frameworks]
    parts += [
        f"CUDA toolkit {tk.nvcc_version or tk.version}"
        for tk in facts.cuda_libs.toolkits
        if tk.nvcc_version or tk.version
    ][:1]
    return ", ".join(parts) or "no framework or CUDA toolkit found"


def _intent(intent: Intent) -> str:
    if intent.framework is None:
        return f"CUDA {intent.cuda}" if intent.cuda else ""
    name = intent.framework + (f"=={intent.framework_version}" if intent.framework_version else "")
    return name + (f" with CUDA {intent.cuda}" if intent.cuda else "")


def _amd(facts: HostFacts) -> str:
    amd = facts.amd
    if not amd.seen:
        return ""
    kinds = Counter(n.gfx_target or "unknown target" for n in amd.gpu_nodes)
    gpus = "; ".join(
        f"{n} × {gfx}"  # noqa: RUF001 - the multiplication sign is meant
        for gfx, n in kinds.items()
    ) or f"{len(amd.pci_gpus)} listed" + ("" if facts.report else " on the PCI bus, none in KFD")
    return gpus + (f", ROCm {amd.rocm_version}" if amd.rocm_version else "")


def _multigpu(facts: HostFacts) -> str:
    gpus = live_gpus(facts)
    links = max((sum(1 for link in g.nvlinks if link.active) for g in gpus), default=0)
    parts = [f"{len(gpus)} GPU(s)" if gpus else "no GPU visible to NVML"]
    if links:
        parts.append(f"NVLink ×{links}")  # noqa: RUF001 - the multiplication sign is meant
    if facts.multigpu.nvswitch_count:
        parts.append(f"{facts.multigpu.nvswitch_count} NVSwitch(es)")
    ports = facts.multigpu.ib_ports
    if ports:
        active = sum(1 for p in ports if p.state == "ACTIVE")
        parts.append(f"{active}/{len(ports)} IB/RoCE port(s) active")
    return ", ".join(parts)
