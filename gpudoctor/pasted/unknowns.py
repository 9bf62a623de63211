"""What a report could not tell: the facts the checks read that no recognised section showed.
Said once in the report, so that the unknown findings below it are not a surprise."""

from __future__ import annotations

from gpudoctor.facts import HostFacts


def unknowns(facts: HostFacts) -> list[str]:
    out: list[str] = []
    n, k, p = facts.nvml, facts.kernel, facts.platform
    if n.driver_version is None and k.nvidia_module_version is None:
        out.append("the NVIDIA driver version")
    if n.cuda_driver_version is None:
        out.append("the newest CUDA the driver supports")
    if not n.gpus:
        out.append("the GPUs (no nvidia-smi output or GPU list)")
    elif any(g.compute_capability is None for g in n.gpus):
        out.append("the compute capability of some GPUs (a name the matrix does not list)")
    if not facts.frameworks:
        out.append("the installed frameworks (no collect_env or pip list)")
    else:
        for fw in facts.frameworks:
            if fw.cuda is None and fw.cpu_only is None:
                out.append(f"the CUDA {fw.name} {fw.version} was built with")
    if k.nvidia_module_version is None:
        out.append("the loaded kernel module version (/proc/driver/nvidia/version)")
    out.append("PCI devices, kernel modules, /dev/nvidia* device nodes")
    if facts.amd.seen:
        out.append("/dev/kfd and render-node permissions, the user's groups, /opt/rocm")
    if p.container is None:
        out.append("whether it ran in a container, and the container runtime")
    return out
