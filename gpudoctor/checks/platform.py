"""Platform checks: bare metal or VM, IOMMU for passthrough and P2P, WSL, containers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts_view import has_gpu, live_gpus, nvidia_pci_gpus
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.wording import gpu_label, plural

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts, NumaNode
    from gpudoctor.matrix.model import Matrix


def where(facts: HostFacts) -> str:
    """ "bare metal", "VM (kvm)", "WSL 2", plus " in a docker container"."""
    p = facts.platform
    if p.wsl:
        place = "WSL 2"
    elif p.virtualization in (None, "none"):
        place = "bare metal" if p.virtualization == "none" else "unknown virtualization"
    else:
        place = f"VM ({p.virtualization})"
    if p.container:
        place += f", in a {p.container} container" + (" (Kubernetes)" if p.kubernetes else "")
    return place


def check_virtualization(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    ev = [
        ("virtualization", p.virtualization),
        ("hypervisor_flag", p.hypervisor_flag),
        ("dmi_vendor", p.dmi_vendor),
        ("dmi_product", p.dmi_product),
        ("container", p.container),
    ]
    if p.virtualization is None and not p.wsl:
        said = (
            "could not tell bare metal from VM"
            if facts.report is None
            else "bare metal or VM: not in the report"
        )
        return [finding("virtualization", UNKNOWN, said, evidence=ev)]
    sev = OK if p.virtualization == "none" and not p.container else INFO
    return [finding("virtualization", sev, where(facts), evidence=ev)]


_IOMMU_FIX = (
    "add `intel_iommu=on iommu=pt` (Intel) or `amd_iommu=on iommu=pt` (AMD) to "
    "GRUB_CMDLINE_LINUX in /etc/default/grub, then sudo update-grub (RHEL: sudo grub2-mkconfig "
    "-o /boot/grub2/grub.cfg) and reboot"
)


def check_iommu(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    io = facts.platform.iommu
    vfio = [d.address for d in nvidia_pci_gpus(facts) if d.driver == "vfio-pci"]
    ev = [
        ("iommu_enabled", io.enabled),
        ("iommu_vendor", io.vendor),
        ("iommu_groups", io.group_count),
        ("default_domain", io.default_domain),
        ("cmdline_flags", io.cmdline_flags),
        ("vfio_bound_gpus", vfio),
    ]
    if facts.platform.wsl:
        return [finding("iommu", NA, "not applicable under WSL", evidence=ev)]
    if vfio and io.enabled is False:
        return [
            finding(
                "iommu",
                ERROR,
                f"{len(vfio)} GPU(s) bound to vfio-pci but the IOMMU is off: passthrough fails",
                fix=_IOMMU_FIX,
                evidence=ev,
            )
        ]
    if io.enabled is None:
        sev = UNKNOWN if has_gpu(facts) and not facts.platform.container else NA
        return [finding("iommu", sev, "IOMMU state unknown", evidence=ev)]
    if not io.enabled:
        return [finding("iommu", OK, "IOMMU off", evidence=ev)]
    translated = io.default_domain in ("DMA", "DMA-FQ")
    bare_multi = facts.platform.virtualization == "none" and len(live_gpus(facts)) > 1
    if translated and bare_multi:
        return [
            finding(
                "iommu",
                INFO,
                f"IOMMU on in translated mode ({io.default_domain}) with several GPUs",
                detail="with PCIe ACS redirection, GPU peer-to-peer traffic goes through the root "
                "complex: NCCL may hang or run slowly (NVIDIA/nccl#257); pass-through mode avoids "
                "the translation",
                fix="add iommu=pt to the kernel command line (or test with NCCL_P2P_DISABLE=1)",
                evidence=ev,
            )
        ]
    mode = f" ({io.default_domain})" if io.default_domain else ""
    return [finding("iommu", OK, f"IOMMU on{mode}", evidence=ev)]


def check_wsl(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.platform.wsl:
        return [finding("wsl", NA, "not WSL")]
    module = facts.kernel.nvidia_module_version
    if module or "nvidia" in facts.kernel.modules_loaded:
        return [
            finding(
                "wsl",
                WARN,
                "a Linux NVIDIA kernel module is present inside WSL",
                detail="installing a Linux driver inside WSL breaks the Windows driver's GPU "
                "forwarding",
                fix="remove the Linux driver packages inside WSL (keep only the CUDA toolkit) "
                "and update the driver on Windows",
                evidence=[("nvidia_module_version", module)],
            )
        ]
    return [
        finding(
            "wsl",
            INFO,
            "WSL 2: the Windows NVIDIA driver provides the GPU",
            detail="libraries come from /usr/lib/wsl/lib; never install a Linux driver inside "
            "WSL; persistence mode, MIG and ECC controls are not available",
            evidence=[("nvml_library", facts.nvml.library_path)],
        )
    ]


def check_container_gpus(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    value = p.nvidia_visible_devices
    ev = [
        ("container", p.container),
        ("NVIDIA_VISIBLE_DEVICES", value),
        ("NVIDIA_DRIVER_CAPABILITIES", p.nvidia_driver_capabilities),
    ]
    # A pasted NVIDIA_VISIBLE_DEVICES is a container's: images and the runtime's device
    # plugins set it, for the NVIDIA runtime to read when the container starts.
    if not p.container and (facts.report is None or value is None):
        return [finding("container-gpus", NA, "not in a container", evidence=ev)]
    fix = (
        "start the container with `--gpus all` (Docker), `--device nvidia.com/gpu=all` (CDI) "
        "or a nvidia.com/gpu resource limit (Kubernetes)"
    )
    if value is None and facts.report is not None:
        # A paste shows a container's environment only when the reporter printed it.
        return [
            finding(
                "container-gpus",
                UNKNOWN,
                "the report does not show the container's NVIDIA_VISIBLE_DEVICES",
                fix="run `gpudoctor check` in the container (or print `env | grep NVIDIA_`)",
                evidence=ev,
            )
        ]
    if value in (None, "", "void", "none"):
        if not has_gpu(facts) and facts.report is None:
            amd = " (its AMD GPUs: see amd-device-access)" if facts.amd.seen else ""
            return [
                finding(
                    "container-gpus",
                    INFO,
                    "no NVIDIA GPU passed to this container (and none on the host's PCI bus)" + amd,
                    evidence=ev,
                )
            ]
        got_gpus = bool(live_gpus(facts))
        shown = "unset" if value is None else repr(value)
        # a paste that shows no GPU may come from a container meant to run without one
        unshown = facts.report is not None and not has_gpu(facts)
        return [
            finding(
                "container-gpus",
                WARN if got_gpus or unshown else ERROR,
                f"NVIDIA_VISIBLE_DEVICES is {shown}: the NVIDIA runtime gives this container no "
                "GPU"
                + (" (yet NVML sees some: devices were passed another way)" if got_gpus else ""),
                fix=fix,
                evidence=ev,
            )
        ]
    caps = p.nvidia_driver_capabilities
    if caps is not None and not ({"compute", "all"} & set(caps.split(","))):
        return [
            finding(
                "container-gpus",
                WARN,
                f"NVIDIA_DRIVER_CAPABILITIES={caps} lacks 'compute': CUDA libraries not mounted",
                fix="set NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all)",
                evidence=ev,
            )
        ]
    return [finding("container-gpus", OK, f"NVIDIA_VISIBLE_DEVICES={value}", evidence=ev)]


def check_cuda_visible(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    found = _cuda_visible(facts)
    value = facts.platform.cuda_visible_devices
    if value is None or found[0].severity not in (OK, INFO):
        return found
    migs = [e.strip() for e in value.split(",") if e.strip().upper().startswith("MIG-")]
    if len(migs) < 2:
        return found
    # The MIG user guide: "With CUDA 11/R450 and CUDA 12/R525, only enumeration of a single MIG
    # instance is supported": one process sees one MIG device however many the variable lists.
    return [
        finding(
            "cuda-visible-devices",
            WARN,
            f"CUDA_VISIBLE_DEVICES lists {len(migs)} MIG devices; a CUDA process sees only one",
            detail="a CUDA process enumerates a single MIG device whatever CUDA_VISIBLE_DEVICES "
            "or a container makes visible (MIG user guide, CUDA 11/R450 and CUDA 12/R525): the "
            "program sees one device, cuda:0, and 'invalid device ordinal' for cuda:1",
            fix="run one process per MIG device, each with CUDA_VISIBLE_DEVICES set to one MIG "
            "UUID; MIG devices cannot be used together by one process (no multi-GPU training "
            "across them)",
            evidence=[("CUDA_VISIBLE_DEVICES", value), ("mig_devices", len(migs))],
        )
    ]


def _cuda_visible(facts: HostFacts) -> list[Finding]:
    value = facts.platform.cuda_visible_devices
    ev = [("CUDA_VISIBLE_DEVICES", value)]
    if value is None:
        return [finding("cuda-visible-devices", OK, "CUDA_VISIBLE_DEVICES unset", evidence=ev)]
    if value.strip() in ("", "-1") or value.strip().startswith("-1"):
        return [
            finding(
                "cuda-visible-devices",
                WARN if has_gpu(facts) else INFO,
                f"CUDA_VISIBLE_DEVICES={value!r} hides every GPU from CUDA",
                fix="unset CUDA_VISIBLE_DEVICES (or list the GPUs to use)",
                evidence=ev,
            )
        ]
    gpus = live_gpus(facts)
    if not gpus:
        return [finding("cuda-visible-devices", INFO, f"CUDA_VISIBLE_DEVICES={value}", evidence=ev)]
    if facts.report is not None and not set(facts.report.sections) & _EVERY_GPU_LISTED:
        # A CUDA program (llama.cpp, TensorFlow, ollama, deviceQuery) lists only the GPUs the
        # variable leaves visible, numbered again from 0: "CUDA_VISIBLE_DEVICES=7" next to its
        # "Device 0" is one GPU working, not an index that is missing.
        return [
            finding(
                "cuda-visible-devices",
                INFO,
                f"CUDA_VISIBLE_DEVICES={value}",
                detail="the report lists its GPUs as a CUDA program sees them, after this "
                "variable chose them: its entries cannot be compared with that list (nvidia-smi "
                "lists every GPU of the host)",
                evidence=[*ev, ("gpus", len(gpus))],
            )
        ]
    entries = [e.strip() for e in value.split(",")]
    for position, entry in enumerate(entries):
        why = visible_entry_problem(entry, gpus)
        if why is None:
            continue
        lost = entries[position:]
        seen = entries[:position]
        return [
            finding(
                "cuda-visible-devices",
                WARN,
                f"CUDA_VISIBLE_DEVICES={value!r}: {entry!r} {why}",
                detail="CUDA makes visible only the devices listed before the first entry it "
                f"cannot match; it ignores {', '.join(repr(e) for e in lost)}"
                + (
                    f" and shows {', '.join(seen)}"
                    if seen
                    else ", so no GPU is visible ('no CUDA-capable device is detected')"
                ),
                fix=f"list devices this host has: indexes 0 to {len(gpus) - 1}, or GPU-/MIG- "
                "UUIDs from `nvidia-smi -L`; a program that reads the variable as integers "
                "needs the index form",
                evidence=[*ev, ("gpus", len(gpus))],
            )
        ]
    return [
        finding(
            "cuda-visible-devices",
            OK,
            f"CUDA_VISIBLE_DEVICES={value}: every entry names a device here",
            evidence=ev,
        )
    ]


# The pasted shapes that list every GPU of a host whatever CUDA_VISIBLE_DEVICES says (NVML,
# the driver, or the node's labels); their names are the section names of gpudoctor/pasted
# (smi_table, smi_query, smi_xml, smi_csv, lines, collect_env, which runs `nvidia-smi -L`,
# nv_tools and cluster; tests/checks/test_visible_devices.py keeps the names in step).
_EVERY_GPU_LISTED = frozenset(
    {
        "nvidia-smi",
        "nvidia-smi -q",
        "nvidia-smi -q -x",
        "nvidia-smi --query-gpu",
        "nvidia-smi -L",
        "collect_env",
        "NVIDIA tools",
        "cluster tools",
    }
)
_INDEX = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only: "²".isdigit() is true


def visible_entry_problem(entry: str, gpus: Sequence[GpuFacts]) -> str | None:
    """Why one CUDA_VISIBLE_DEVICES entry names no device of these GPUs, or None when it does
    (or when the facts cannot tell). Forms (CUDA C Programming Guide, environment variables): an
    index, a GPU-/MIG- UUID or a unique prefix of one; a redacted snapshot writes a UUID as its
    GPU's index ("0"), a MIG device's as "GPU:MIG" ("0:1"), an unknown one as "GPU-<redacted>"."""
    if _INDEX.fullmatch(entry):
        index, count = int(entry), len(gpus)
        return None if 0 <= index < count else f"is no GPU index here (GPUs 0 to {count - 1})"
    if entry.endswith("<redacted>"):
        return "is a UUID of no GPU or MIG device on this host"
    pair = entry.split(":")
    if len(pair) == 2 and all(_INDEX.fullmatch(p) for p in pair):
        return _mig_pair_problem(int(pair[0]), int(pair[1]), gpus)
    return _uuid_problem(entry, gpus)


def _uuid_problem(entry: str, gpus: Sequence[GpuFacts]) -> str | None:
    kind = entry[:4].upper()
    if kind not in ("GPU-", "MIG-"):
        return "is neither an index nor a GPU-/MIG- UUID"
    if kind == "GPU-":
        known = [g.uuid for g in gpus if g.uuid]
    else:
        known = [m.uuid for g in gpus for m in g.mig_devices if m.uuid]
    matches = [u for u in known if u.lower().startswith(entry.lower())]
    if not known or len(matches) == 1:
        return None  # unrecorded UUIDs cannot be compared; one match is the device
    if matches:
        return "is a UUID prefix of more than one device"
    return "is a UUID of no " + ("GPU" if kind == "GPU-" else "MIG device") + " here"


def _mig_pair_problem(gpu_index: int, mig_index: int, gpus: Sequence[GpuFacts]) -> str | None:
    gpu = next((g for g in gpus if g.index == gpu_index), None)
    if gpu is None:
        return f"names MIG device {mig_index} of GPU {gpu_index}, which is not here"
    if gpu.mig_devices and all(m.index != mig_index for m in gpu.mig_devices):
        return f"names MIG device {mig_index} of GPU {gpu_index}, which has no such device"
    return None


def check_cpu_memory(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p, cpu = facts.platform, facts.platform.cpu
    nodes = [f"node {n.node}: {n.cpus} CPUs, {_gib(n.memory_total_bytes)}" for n in cpu.numa_nodes]
    ats = [g.index for g in live_gpus(facts) if g.addressing_mode == "ats"]
    ev = [
        ("machine", p.machine),
        ("cpu_model", cpu.model),
        ("cpu_implementer", cpu.implementer),
        ("cpu_parts", list(cpu.parts)),
        ("numa_nodes", nodes),
        ("gpu_memory_coherent", cpu.gpu_memory_coherent),
        ("gpu_addressing_modes", [g.addressing_mode for g in live_gpus(facts)]),
    ]
    if cpu.model is None and p.machine is None:
        said = (
            "CPU model and machine unknown"
            if facts.report is None
            else "CPU model and machine: not in the report"
        )
        return [finding("cpu-memory", UNKNOWN, said, evidence=ev)]
    title = f"{cpu.model or 'unknown CPU'} ({p.machine or 'unknown machine'})"
    if cpu.numa_nodes:
        title += f", {plural(len(cpu.numa_nodes), 'NUMA node')}"
    why = _coherence_reasons(cpu.numa_nodes, ats)
    if why:
        title += "; GPU memory is coherent with the CPU"
    return [finding("cpu-memory", OK, title, detail="; ".join(why), evidence=ev)]


def _coherence_reasons(numa_nodes: tuple[NumaNode, ...], ats: list[int]) -> list[str]:
    """Why GPU and CPU memory are one coherent space: CPU-less NUMA nodes with memory (GPU
    memory onlined to the OS), and NVML's ATS addressing mode (NVLink-C2C)."""
    why = []
    gpu_nodes = [str(n.node) for n in numa_nodes if n.cpus == 0 and n.memory_total_bytes]
    if gpu_nodes:
        which = "NUMA nodes " if len(gpu_nodes) > 1 else "NUMA node "
        holds = " hold" if len(gpu_nodes) > 1 else " holds"
        why.append(
            which + ", ".join(gpu_nodes) + holds + " memory and no CPUs: GPU memory onlined to "
            "the OS over NVLink-C2C, which the CPU addresses directly"
        )
    if ats:
        why.append(f"NVML reports ATS addressing for {gpu_label(ats)}")
    return why


def _gib(size: int | None) -> str:
    return "memory unknown" if size is None else f"{size / 2**30:.0f} GiB"


CHECKS = (
    check_virtualization,
    check_iommu,
    check_wsl,
    check_container_gpus,
    check_cuda_visible,
    check_cpu_memory,
)
