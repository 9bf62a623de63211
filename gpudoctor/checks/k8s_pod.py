"""A program's "no driver here" line seen in a Kubernetes pod: the pod's own fix.

nvidia-smi not found, libcuda not found, torch's "Found no NVIDIA driver", cudaErrorNoDevice:
on a host these mean no working driver, in a Docker container a `docker run` without `--gpus`.
In a pod they mean the pod got no GPU from Kubernetes, whose two conditions the NVIDIA device
plugin's README names (github.com/NVIDIA/k8s-device-plugin, "Running GPU Jobs" and
"Prerequisites"/"Quick Start"):

- the pod asks for GPUs with a `nvidia.com/gpu` resource limit; the device plugin allocates only
  to such pods ("resources: limits: nvidia.com/gpu: 1"), and a pod that asks for none gets none;
- the pod runs under the NVIDIA container runtime, which mounts the driver's tools and libraries
  (nvidia-smi, libcuda, libnvidia-ml) from the node: nvidia as the default runtime of the node's
  containerd or CRI-O, or else a RuntimeClass (handler `nvidia`) named by `runtimeClassName:
  nvidia` in the pod's spec ("If this is not done, a RuntimeClass needs to be defined").

Which of the two failed is read from what the report shows: the pod's nvidia.com/gpu, its
runtimeClassName, the node's CRI config. `pod_without_driver` words the cause and fix from them;
`checks/pasted_report.py` gives them to the line instead of the host or Docker wording. K3s,
RKE2 and MicroK8s run a containerd of their own, configured through a template their docs name
(docs.k3s.io "Advanced Options": config.toml.tmpl; docs.rke2.io "Configuring containerd";
MicroK8s "Configuring containerd": args/containerd-template.toml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.k8s_runtime import (
    DISTRIBUTION_TEMPLATE,
    RUNTIME_CLASS,
    default_fix,
    distribution_default_fix,
    docker_default_fix,
)

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts

# Signature codes of lines that say the process sees no NVIDIA driver or device at all.
NO_DRIVER_CODES = frozenset(
    {
        "nvidia-smi-not-found",
        "container-without-driver-files",
        "libcuda-not-found",
        "tf-no-cuda-drivers",
        "torch-found-no-driver",
        "ngc-driver-not-detected",
        "no-cuda-device",
        "driver-insufficient",
    }
)
# Codes whose line also fits a driver older than the program's CUDA: a pod rule only where the
# report shows no driver (with one, its CUDA is compared as everywhere).
_ALSO_OLD_DRIVER = frozenset({"driver-insufficient"})
_LIMIT = "`resources: limits: nvidia.com/gpu: 1` in the container's spec"
# The NVIDIA stack's pods, as their logs and the GPU Operator's init containers name them.
_STACK = (
    "dcgm-exporter",
    "nvidia-device-plugin",
    "gpu-feature-discovery",
    "toolkit-validation",
    "driver-validation",
    "cuda-validation",
    "plugin-validation",
)


def pod_without_driver(code: str, facts: HostFacts, line: str = "") -> tuple[str, str] | None:
    """(cause, fix) of a no-driver `line` where the report is of a Kubernetes pod; None
    elsewhere."""
    report = facts.report
    if code not in NO_DRIVER_CODES or report is None or not facts.platform.kubernetes:
        return None
    if code in _ALSO_OLD_DRIVER and facts.nvml.driver_version:
        return None
    runtime = _runtime_fix(facts)
    stack = next((name for name in _STACK if name in line.lower()), None)
    gke = facts.platform.k8s_distribution == "gke"
    if stack is not None and gke:
        return None  # GKE's own stack mounts the driver its own way: the entry's wording
    if stack is not None:
        return (
            f"the line is {stack}'s, a pod of the NVIDIA stack: such pods ask for no "
            "nvidia.com/gpu and see the GPUs through NVIDIA_VISIBLE_DEVICES=all, which only the "
            "NVIDIA container runtime honours (it mounts nvidia-smi and the driver's libraries); "
            f"the pod did not run under it{_runtime_state(facts)}",
            runtime,
        )
    if gke:
        return _gke(facts.platform.k8s_gpu_requested)
    return _by_request(facts, runtime)


def _by_request(facts: HostFacts, runtime: str) -> tuple[str, str]:
    """What the pod asks for decides: no GPU (the limit), GPUs (the runtime), unknown (both)."""
    asked = facts.platform.k8s_gpu_requested
    if asked == 0:
        return (
            "the pod asks for nvidia.com/gpu: 0, so the device plugin gives it no GPU and the "
            "NVIDIA runtime mounts no driver files (nvidia-smi, libcuda) into it",
            f"ask for the GPUs the pod uses: {_LIMIT}",
        )
    if asked is not None:
        return (
            f"the pod asks for nvidia.com/gpu: {asked}, yet it sees no NVIDIA driver: the device "
            "plugin allocated the GPU, but the driver's files (nvidia-smi, libcuda, "
            "libnvidia-ml) are mounted only by the NVIDIA container runtime, and the pod did "
            f"not run under it{_runtime_state(facts)}",
            runtime,
        )
    return (
        "in a Kubernetes pod this means the pod got no GPU: the driver's files (nvidia-smi, "
        "libcuda, libnvidia-ml) reach a pod only when it asks for GPUs with a nvidia.com/gpu "
        "limit and runs under the NVIDIA container runtime (the node's default runtime, or "
        f"runtimeClassName: nvidia){_runtime_state(facts)}",
        f"give the pod {_LIMIT}, and {runtime}",
    )


# The NVIDIA stack's own lines that say its pod got no driver from the runtime.
_STACK_CODES = frozenset(
    {"device-plugin-no-nvml", "device-plugin-no-devices", "dcgm-exporter-no-nvml"}
)


def stack_runtime_fix(code: str, facts: HostFacts) -> str | None:
    """The fix of a device plugin / DCGM exporter line that loads no NVML, worded for the node
    the report shows (Docker as its engine, K3s/RKE2/MicroK8s, a runtimeClassName already set);
    None where the report shows nothing more specific than the entry's own fix."""
    if code not in _STACK_CODES or not facts.platform.kubernetes:
        return None
    r = facts.container_runtime
    specific = (
        r.cri_engine == "docker"
        or bool(r.runtime_class_nvidia)
        or (facts.platform.k8s_distribution or "") in DISTRIBUTION_TEMPLATE
    )
    return _runtime_fix(facts) if specific else None


def _gke(asked: int | None) -> tuple[str, str]:
    """GKE runs no NVIDIA container runtime: it installs the driver on the node and its device
    plugin mounts it (/usr/local/nvidia: nvidia-smi, libcuda) into the containers that request
    nvidia.com/gpu (GKE docs, "Run GPUs in GKE Standard node pools": drivers by
    gpu-driver-version or the driver installer DaemonSet; CUDA libraries under
    /usr/local/nvidia/lib64)."""
    how = (
        "on GKE the node's driver (installed by GKE: the node pool's gpu-driver-version, or the "
        "driver installer DaemonSet) is mounted under /usr/local/nvidia only into containers "
        "that request nvidia.com/gpu; GKE runs no NVIDIA container runtime"
    )
    if asked:
        return (
            f"the pod asks for nvidia.com/gpu: {asked}, yet sees no driver: {how}, so the node's "
            "driver is not installed or the program does not look under /usr/local/nvidia",
            "check the driver installation on the node (`kubectl get pods -n kube-system | grep "
            "nvidia-driver-installer`, or create the node pool with gpu-driver-version=default); "
            "in the container put /usr/local/nvidia/lib64 on LD_LIBRARY_PATH and "
            "/usr/local/nvidia/bin on PATH",
        )
    return (
        f"the pod got no GPU: {how}",
        f"give the container {_LIMIT} (GKE then adds the toleration for the GPU nodes' taint)",
    )


def _runtime_state(facts: HostFacts) -> str:
    """What the report shows of the pod's runtime: its runtimeClassName, the CRI default."""
    r = facts.container_runtime
    if r.runtime_class_nvidia:
        return (
            " (its spec names runtimeClassName: nvidia, so the node's nvidia runtime itself does "
            "not mount them: its handler or the toolkit on the node)"
        )
    if r.cri_engine == "docker":
        shown = r.default_runtime
        return f" (Docker's default runtime is {shown})" if shown and shown != "nvidia" else ""
    default = r.cri_default_runtime
    if r.cri_engine is not None and not (default or "").startswith("nvidia"):
        return f" ({r.cri_engine}'s default runtime is {default or 'its own (runc or crun)'})"
    return ""


def _runtime_fix(facts: HostFacts) -> str:
    """Run the pod under the NVIDIA runtime: by RuntimeClass, or as the node's default."""
    r = facts.container_runtime
    if r.runtime_class_nvidia:
        return (
            "check the node: `nvidia-ctk` installed and the `nvidia` runtime defined in the "
            "containerd/CRI-O config the kubelet uses (`sudo nvidia-ctk runtime configure "
            "--runtime=containerd`), and a RuntimeClass `nvidia` whose handler is `nvidia`"
        )
    if r.cri_engine == "docker":  # dockershim or cri-dockerd: pods get Docker's default
        return docker_default_fix(facts)
    engine = r.cri_engine or "containerd"
    default = distribution_default_fix(facts) or (
        f"nvidia as the node's default runtime: {default_fix(facts, engine)}"
    )
    return f"run it under the NVIDIA runtime: {RUNTIME_CLASS}; or {default}"
