"""A Kubernetes node advertises fewer GPUs than it has: the device plugin marked some unhealthy.
And a pod asks for more nvidia.com/gpu than the node allocates: the scheduler places a pod's
extended resources on one node only, so it stays Pending ("Insufficient nvidia.com/gpu").
And a pod whose nvidia-smi (run through `kubectl exec`) lists more GPUs than it asks for: it got
them outside the scheduler (k8s-pod-extra-gpus).

The kubelet's device manager counts every device a plugin registered in the node's Capacity and
only the healthy ones in its Allocatable, so `Allocatable nvidia.com/gpu` below `Capacity` means
the plugin reported devices unhealthy. The NVIDIA device plugin does that on an Xid event that is
not in its list of application errors (internal/rm/health.go, github.com/NVIDIA/k8s-device-plugin);
a device stays unhealthy until the plugin restarts. `DP_DISABLE_HEALTHCHECKS` lists Xids the
plugin should ignore ("xids" or "all" turns the check off).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.k8s_sharing import as_dict, other_gpu_resources
from gpudoctor.findings import ERROR, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "k8s-gpu-unhealthy"


def check_k8s_gpu_unhealthy(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    capacity = facts.platform.k8s_gpu_capacity
    allocatable = facts.platform.k8s_gpu_allocatable
    ev = [("capacity", capacity), ("allocatable", allocatable)]
    if capacity == 0 or (capacity is None and allocatable == 0):
        # Allocatable alone (`-o jsonpath='{.status.allocatable}'`) without nvidia.com/gpu says
        # as much as Capacity would: the kubelet lists a registered resource in both.
        return _no_gpu_advertised(facts, ev)
    if capacity is None or allocatable is None:
        return [
            finding(
                CODE,
                NA,
                "the node's nvidia.com/gpu Capacity and Allocatable were not read "
                "(`kubectl describe node` shows them)",
                evidence=ev,
            )
        ]
    fewer = _fewer_than_counted(facts, capacity, ev)
    if fewer is not None:
        return [fewer]
    if allocatable >= capacity:
        return [
            finding(
                CODE,
                OK,
                f"the node advertises all its {capacity} GPU(s) as allocatable",
                evidence=ev,
            )
        ]
    lost = capacity - allocatable
    return [
        finding(
            CODE,
            WARN,
            f"the node allocates {allocatable} of its {capacity} GPUs: the device plugin "
            f"marked {lost} unhealthy",
            detail="the kubelet counts every registered device in Capacity and only the healthy "
            "ones in Allocatable; the NVIDIA device plugin marks a GPU unhealthy on an Xid "
            "error outside its list of application errors and keeps it so until the plugin "
            "restarts",
            fix="find the Xid on the node (`sudo dmesg -T | grep -i xid` or the device plugin's "
            "log; `gpudoctor check` on the node explains each Xid); once the GPU is sound, after "
            "the reset or reboot the Xid calls for, restart the device plugin pod so that it "
            "registers the GPU again; an Xid known to be harmless for these workloads can be "
            "ignored with the plugin's DP_DISABLE_HEALTHCHECKS=<xid>",
            evidence=ev,
        )
    ]


def _no_gpu_advertised(facts: HostFacts, ev: list[tuple[str, int | None]]) -> list[Finding]:
    """A node that advertises no nvidia.com/gpu although the report shows it has NVIDIA GPUs (its
    GPUs, the GPU Operator's nvidia.com/gpu.present / NFD's pci-10de.present label, or its
    writer's words: "the node does not show any nvidia.com/gpu"). An explicit
    "nvidia.com/gpu: 0" line is its own known line (k8s-node-zero-gpus)."""
    report = facts.report
    gpus = len(facts.nvml.gpus)
    named = report.named if report is not None else ()
    labelled = "gpu-node" in named
    said = "gpu-node-said" in named  # the text says so: "the node does not show nvidia.com/gpu"
    # `kubectl get nodes -o custom-columns=...:.status.allocatable.nvidia\.com/gpu` asked for
    # the nodes' GPUs and every node listed answered <none>: no node offers one to a pod
    column = "gpu-column-empty" in named
    zero_line = report is not None and any(e.code == "k8s-node-zero-gpus" for e in report.errors)
    if zero_line or not (gpus or labelled or said or column):
        return [finding(CODE, NA, "the node advertises no nvidia.com/gpu", evidence=ev)]
    has = (
        f"{gpus} GPU(s)"
        if gpus
        else "an NVIDIA GPU (its node labels)"
        if labelled
        else "NVIDIA GPUs (as the report says)"
    )
    title = (
        f"the node has {has} but advertises no nvidia.com/gpu: the device plugin registered none"
    )
    if not (gpus or labelled or said):
        title = (
            "no node listed advertises nvidia.com/gpu (the -o custom-columns GPU column is "
            "<none> or 0 in every row): the device plugin registered none"
        )
    detail, fix = _MANAGED.get(facts.platform.k8s_distribution or "", (_DETAIL, _FIX))
    kept_off = _kept_off(facts)
    if kept_off is not None:
        detail, fix = kept_off
    return [
        finding(
            CODE,
            WARN,
            title,
            detail=detail,
            fix=fix,
            evidence=[
                *ev,
                ("gpus", gpus),
                ("gpu_node_label", labelled),
                ("said_in_text", said),
                ("gpu_column_empty", column),
                ("k8s_distribution", facts.platform.k8s_distribution),
            ],
        )
    ]


def _fewer_than_counted(
    facts: HostFacts, capacity: int, ev: list[tuple[str, int | None]]
) -> Finding | None:
    """GPU feature discovery's nvidia.com/gpu.count is the GPUs NVML shows on the node, and the
    device plugin registers each one, nvidia.com/gpu.replicas times where a sharing strategy
    is set (docs/gpu-feature-discovery/README.md, github.com/NVIDIA/k8s-device-plugin): a
    Capacity below that product is GPUs the plugin did not register. Not judged under a MIG
    strategy (`single` counts MIG devices, `mixed` leaves MIG GPUs out of nvidia.com/gpu) or
    with shared GPUs renamed nvidia.com/gpu.shared, nor on the labels of several nodes."""
    labels = as_dict(facts.platform.k8s_node_labels)
    count = labels.get("nvidia.com/gpu.count", "")
    replicas = labels.get("nvidia.com/gpu.replicas", "1")
    if not (count.isdecimal() and replicas.isdecimal()) or int(replicas) < 1:
        return None
    if labels.get("nvidia.com/mig.strategy", "none") != "none" or any(
        item.name.startswith("nvidia.com/mig-") or item.name == "nvidia.com/gpu.shared"
        for item in facts.platform.k8s_node_capacity
    ):
        return None
    expected = int(count) * int(replicas)
    if capacity >= expected:
        return None
    shared = f" x {replicas} replicas = {expected}" if int(replicas) > 1 else ""
    return finding(
        CODE,
        WARN,
        f"the node registers {capacity} nvidia.com/gpu, but GPU feature discovery counts "
        f"{count} GPU(s){shared} (nvidia.com/gpu.count): the device plugin did not register "
        "them all",
        detail="GPU feature discovery labels the GPUs NVML shows on the node, and the device "
        "plugin registers every GPU it sees (each nvidia.com/gpu.replicas times when shared): "
        "it sees fewer when its own container is limited (NVIDIA_VISIBLE_DEVICES or "
        "CUDA_VISIBLE_DEVICES set in its DaemonSet), when a GPU failed NVML as it started "
        "(an Xid, a GPU fallen off the bus), or when its config's sharing replicas differ "
        "from what it applied",
        fix="read the device plugin's log on that node (`kubectl logs -n <namespace> "
        "<device-plugin-pod>`: the devices it found) and its DaemonSet's env; `nvidia-smi -L` "
        "on the node lists the GPUs; restart the plugin pod once the GPUs are sound",
        evidence=[*ev, ("gfd_gpu_count", int(count)), ("gfd_replicas", int(replicas))],
    )


def _kept_off(facts: HostFacts) -> tuple[str, str] | None:
    """The GPU Operator's node labels that keep its device plugin off a node: it deploys each
    operand only on nodes whose nvidia.com/gpu.deploy.<operand> label is "true", sets the label
    itself only where it is absent (a "false" set by the cluster's owner stays), and deploys no
    operand where nvidia.com/gpu.deploy.operands=false; a node whose
    nvidia.com/gpu.workload.config is vm-passthrough or vm-vgpu gets the sandbox device plugin,
    which advertises its GPUs for virtual machines, not nvidia.com/gpu (controllers/
    state_manager.go: gpuStateLabels, addGPUStateLabels, hasOperandsDisabled)."""
    labels = as_dict(facts.platform.k8s_node_labels)
    for key in ("nvidia.com/gpu.deploy.operands", "nvidia.com/gpu.deploy.device-plugin"):
        if labels.get(key) == "false":
            return (
                f"the node carries {key}=false: the GPU Operator deploys its device plugin only "
                "on nodes whose nvidia.com/gpu.deploy.device-plugin label is true (and no "
                "operand at all where nvidia.com/gpu.deploy.operands=false), and it never "
                "overwrites a value someone set",
                f"if the node is meant to run GPU pods, remove the label (`kubectl label node "
                f"NODE {key}-`) so that the operator sets it to true and deploys the plugin; "
                "check the node's other nvidia.com/gpu.deploy.* labels (driver, "
                "container-toolkit, operator-validator) the same way",
            )
    workload = labels.get("nvidia.com/gpu.workload.config", "")
    if workload in ("vm-passthrough", "vm-vgpu"):
        return (
            f"the node's nvidia.com/gpu.workload.config is {workload}: the GPU Operator deploys "
            "its sandbox stack there (VFIO or vGPU manager and the sandbox device plugin, which "
            "advertises the GPUs for KubeVirt virtual machines under their model's name), not "
            "the container device plugin that advertises nvidia.com/gpu",
            "for container workloads set the node's workload to container (`kubectl label node "
            "NODE nvidia.com/gpu.workload.config=container --overwrite`, or the ClusterPolicy's "
            "sandboxWorkloads.defaultWorkload); keep it for nodes that serve virtual machines",
        )
    return None


_DETAIL = (
    "the kubelet adds nvidia.com/gpu to a node's Capacity and Allocatable once the NVIDIA device "
    "plugin registers its GPUs; none there means the plugin does not run on this node (a "
    "nodeSelector, a taint it does not tolerate, the GPU Operator's deploy labels), or runs "
    "without the NVIDIA runtime and finds no GPU (its log: could not load NVML)"
)
_FIX = (
    "`kubectl get pods -A -o wide | grep -i device-plugin`: if no plugin pod runs on the node, "
    "check its DaemonSet's nodeSelector and tolerations; if one runs, read its log and make "
    "nvidia the node's default container runtime (or give the plugin runtimeClassName: nvidia)"
)
# The managed services' own GPU set-up (their docs): GKE runs its own device plugin
# (nvidia-gpu-device-plugin in kube-system), which waits in its nvidia-driver-installer init
# container until the node has a driver, installed by GKE (the node pool's gpu-driver-version)
# or by the nvidia-driver-installer DaemonSet (GKE, "Run GPUs in GKE Standard node pools";
# GoogleCloudPlatform/container-engine-accelerators). AKS installs the driver on a GPU node pool
# unless it was created with --gpu-driver none (for the GPU Operator), but not the device plugin,
# which the cluster's owner deploys (AKS, "Use GPUs for compute-intensive workloads"; "Use the
# NVIDIA GPU Operator on AKS").
_MANAGED = {
    "gke": (
        "on GKE the node's GPUs are advertised by GKE's own device plugin "
        "(nvidia-gpu-device-plugin in kube-system), which waits until the node has an NVIDIA "
        "driver; GKE installs it only when the node pool asks for it (gpu-driver-version=default "
        "or latest), else the nvidia-driver-installer DaemonSet must; GKE runs no NVIDIA "
        "container runtime, so none is to be configured",
        "`kubectl get pods -n kube-system -o wide | grep nvidia` and the log of the device "
        "plugin pod's nvidia-driver-installer container; create the GPU node pool with "
        "`--accelerator type=<gpu>,count=<n>,gpu-driver-version=default` (or latest), or apply "
        "the nvidia-driver-installer DaemonSet for the node image (cos/ or ubuntu/ "
        "daemonset-preloaded.yaml from GoogleCloudPlatform/container-engine-accelerators); a GPU "
        "that needs a newer driver than the default takes gpu-driver-version=latest",
    ),
    "aks": (
        "an AKS GPU node pool gets the NVIDIA driver from AKS (unless created with --gpu-driver "
        "none) but no device plugin: nvidia.com/gpu appears only once the NVIDIA device plugin "
        "DaemonSet or the GPU Operator runs on the node (or on an AKS-managed GPU node pool, "
        "which installs the plugin itself); a plugin that does not tolerate the pool's taint "
        "(such as sku=gpu:NoSchedule) never lands there",
        "deploy the NVIDIA device plugin DaemonSet (its tolerations matching the node pool's "
        "taints, nodeSelector kubernetes.azure.com/accelerator: nvidia), or install the GPU "
        "Operator on a node pool created with `--gpu-driver none` so that the operator brings "
        "the driver; then `kubectl describe node` shows nvidia.com/gpu under Allocatable",
    ),
}


REQUEST = "k8s-gpu-request"


def check_k8s_gpu_request(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """The pod's nvidia.com/gpu against the node's Allocatable, both from one paste. Kubernetes
    schedules a pod's extended resources from one node (its docs, "Schedule GPUs": a pod asks
    for whole GPUs in limits; the device plugin advertises a node's GPUs), so a request above
    what the node allocates can never be met there."""
    asked = facts.platform.k8s_gpu_requested
    allocatable = facts.platform.k8s_gpu_allocatable
    ev = [("requested", asked), ("allocatable", allocatable)]
    if asked is None or allocatable is None:
        return [
            finding(
                REQUEST,
                NA,
                "a pod's nvidia.com/gpu and a node's Allocatable were not both read",
                evidence=ev,
            )
        ]
    others = other_gpu_resources(facts.platform.k8s_node_resources)
    if allocatable == 0 and others:
        return [
            finding(
                REQUEST,
                NA,
                f"the node advertises its GPUs as {', '.join(others)}, not nvidia.com/gpu "
                "(k8s-gpu-resource-name compares them with the pod's)",
                evidence=ev,
            )
        ]
    if asked <= allocatable:
        return [
            finding(
                REQUEST,
                OK,
                f"the pod asks for {asked} of the node's {allocatable} allocatable GPU(s)",
                evidence=ev,
            )
        ]
    return [
        finding(
            REQUEST,
            ERROR,
            f"the pod asks for {asked} nvidia.com/gpu, the node allocates {allocatable}",
            detail="the scheduler takes all of a pod's GPUs from one node, so on this node the "
            "pod stays Pending with 'Insufficient nvidia.com/gpu'"
            + (
                ""
                if facts.platform.k8s_gpu_capacity is None
                or facts.platform.k8s_gpu_capacity <= allocatable
                else f"; the node has {facts.platform.k8s_gpu_capacity}, the rest are unhealthy"
            ),
            fix=f"ask for at most {allocatable} nvidia.com/gpu per pod on this node (split the "
            "work over pods, or use a node with more GPUs); with time-slicing or MPS the node "
            "advertises replicas, which a pod may also ask for only up to what one node has",
            evidence=ev,
        )
    ]


LIMITS = "k8s-gpu-limits"


def check_k8s_gpu_limits(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """A pod spec's nvidia.com/ resource under `requests` against its `limits` in the same
    container. Kubernetes lets no extended resource be overcommitted: the API server requires
    its limit and that the request equal it (validation: "Limit must be set for non
    overcommitable resources", "must be equal to <resource> limit"); its docs, "Schedule GPUs":
    GPUs are specified in limits, a request without a limit is not allowed, and both, when
    given, must be equal."""
    p = facts.platform
    name, asked, limit = p.k8s_gpu_spec_resource, p.k8s_gpu_spec_requests, p.k8s_gpu_spec_limits
    ev = [("resource", name), ("requests", asked), ("limits", limit)]
    if name is None or asked is None:
        return [
            finding(
                LIMITS,
                NA,
                "no pod spec naming an nvidia.com/ resource under requests was read",
                evidence=ev,
            )
        ]
    if limit == asked:
        return [
            finding(
                LIMITS,
                OK,
                f"the pod's {name} request ({asked}) equals its limit",
                evidence=ev,
            )
        ]
    said = "sets no limit of it" if limit is None else f"limits it to {limit}"
    return [
        finding(
            LIMITS,
            ERROR,
            f"the pod requests {name}: {asked} and {said}: the API server rejects the spec",
            detail="an extended resource such as an NVIDIA GPU cannot be overcommitted: "
            "Kubernetes requires it in the container's limits and, where it is also under "
            "requests, the request equal to the limit (kubectl apply fails with 'Limit must be "
            "set for non overcommitable resources' or 'must be equal to "
            f"{name} limit'); a controller's pods are then never created",
            fix=f"put `{name}: {asked}` under the container's resources.limits (a limit alone "
            "is enough: Kubernetes takes the request from it), and keep any request of it "
            "equal to the limit",
            evidence=ev,
        )
    ]


SEEN = "k8s-pod-extra-gpus"


def check_k8s_pod_extra_gpus(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """The GPUs nvidia-smi lists inside a pod (`kubectl exec POD -- nvidia-smi`) against the
    nvidia.com/gpu the pod asks for. The device plugin hands a container its GPUs by default
    through NVIDIA_VISIBLE_DEVICES (k8s-device-plugin README, DEVICE_LIST_STRATEGY `envvar`),
    and the NVIDIA runtime honours that variable wherever it is set when the container is
    privileged or the toolkit accepts it from unprivileged ones, its default
    (nvidia-container-toolkit internal/config/image/cuda_image.go; config
    accept-nvidia-visible-devices-envvar-when-unprivileged = true): a pod whose image or spec
    says NVIDIA_VISIBLE_DEVICES=all (the CUDA images do), or a privileged one, sees every GPU
    of its node whatever it asked. MIG devices are not compared: nvidia-smi lists them under
    their GPU."""
    p = facts.platform
    seen, asked = p.k8s_exec_gpus, p.k8s_gpu_requested
    ev = [("seen", seen), ("requested", asked)]
    if seen is None or asked is None:
        return [
            finding(
                SEEN,
                NA,
                "no nvidia-smi run inside a pod (kubectl exec) beside the pod's nvidia.com/gpu",
                evidence=ev,
            )
        ]
    if any("/mig-" in item.name for item in p.k8s_pod_resources):
        return [finding(SEEN, NA, "the pod asks for MIG devices", evidence=ev)]
    if seen <= asked:
        return [
            finding(SEEN, OK, f"the pod sees {seen} of the {asked} GPU(s) it asks for", evidence=ev)
        ]
    said = (
        " (the report shows NVIDIA_VISIBLE_DEVICES=all)"
        if (p.nvidia_visible_devices or "").lower() == "all"
        else ""
    )
    return [
        finding(
            SEEN,
            WARN,
            f"the pod asks for {asked} nvidia.com/gpu and nvidia-smi inside it lists {seen} GPUs",
            detail="the pod sees GPUs the scheduler did not give it, and other pods may be "
            "given them too: the device plugin passes a container its GPUs in "
            "NVIDIA_VISIBLE_DEVICES (its default list strategy, envvar), and the NVIDIA runtime "
            "honours that variable wherever the pod or its image sets it (the CUDA images set "
            "NVIDIA_VISIBLE_DEVICES=all) when the container is privileged, or unprivileged with "
            "the toolkit's default accept-nvidia-visible-devices-envvar-when-unprivileged = "
            f"true{said}",
            fix="in the pod: ask for the GPUs it uses in `resources.limits` (nvidia.com/gpu), "
            "set no NVIDIA_VISIBLE_DEVICES in its spec and run it unprivileged; on the nodes, "
            "so that no image can ask for GPUs by that variable: the device plugin's "
            "DEVICE_LIST_STRATEGY=volume-mounts (or cdi-cri) and "
            "`accept-nvidia-visible-devices-envvar-when-unprivileged = false` with "
            "`accept-nvidia-visible-devices-as-volume-mounts = true` in "
            "/etc/nvidia-container-runtime/config.toml (GPU Operator: the toolkit's env "
            "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false and "
            "ACCEPT_NVIDIA_VISIBLE_DEVICES_AS_VOLUME_MOUNTS=true, the device plugin's "
            "DEVICE_LIST_STRATEGY=volume-mounts); a privileged pod sees every GPU whatever "
            "these say",
            evidence=ev,
        )
    ]


CHECKS = (
    check_k8s_gpu_unhealthy,
    check_k8s_gpu_request,
    check_k8s_gpu_limits,
    check_k8s_pod_extra_gpus,
)
