"""Kubernetes read from text: the words that name it, kubectl's versions, the distributions
(K3s, RKE2, MicroK8s, managed ones), RuntimeClass, GPU sharing, and prose on pods or nodes
without a GPU."""

from __future__ import annotations

import re

from gpudoctor.facts import K8sItem
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx


def _kubectl_version(m: re.Match[str], d: Draft) -> bool:
    if m.group("name"):
        return _k8s_distribution(m, d)
    return _kubernetes(m, d)


def _kubernetes(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    return True


# A node that advertises no nvidia.com/gpu, said in prose ("the node does not show any
# nvidia.com/gpu", "nvidia.com/gpu is not listed in Allocatable", "Allocatable nvidia.com/gpu is
# 0", "the node reports nvidia.com/gpu: 0", "no GPU resources on the node"): what `kubectl
# describe node` would show, on a node its writer says has GPUs. Not a node short of free GPUs
# ("does not have enough GPU resources" is Insufficient nvidia.com/gpu, a pending pod's event).
_GPU_RESOURCE = r"(?:nvidia\.com/gpus?|gpu resources?|allocatable gpus?|gpu capacity)\b"

_NOT = r"(?:(?:does|do|did|is|are|was|were|can)\s?(?:n[o']?t|n't)|never|no longer)"

_NODE_WITHOUT_GPU = (
    rf"\bnodes?\b[^\n]{{0,40}}?\b{_NOT}\s(?:show|list|have|has|advertis|report|expose|register|"
    rf"display|get)\w{{0,4}}\s(?:any\s|the\s)?{_GPU_RESOURCE}"
    rf"|{_GPU_RESOURCE}\s{{0,2}}(?:resources?\s)?(?:(?:is|are|was|were)\s)?(?:n[o']?t|never|no "
    rf"longer)\s(?:being\s)?(?:shown|showing|listed|advertised|present|appear\w{{0,3}}|"
    rf"registered|visible|there|detected|found)\b"
    rf"|\b(?:allocatable|capacity)\b[^\n]{{0,30}}?\bnvidia\.com/gpu\b[\"'`]?\s{{0,2}}(?:[:=]|is\b|"
    rf"shows?\b)\s{{0,3}}[\"'`]?0(?![\d.])"
    rf"|\bnodes?\b[^\n]{{0,30}}?\b(?:shows?|reports?|has|have|lists?|advertises?)\s(?:only\s)?"
    rf"[\"'`]?nvidia\.com/gpu\b[\"'`]?\s{{0,2}}[:=]\s{{0,3}}[\"'`]?0(?![\d.])"
    rf"|\bno\s(?:nvidia\.com/gpu|gpu resources?|allocatable gpus?)\b[^\n]{{0,30}}?\b(?:on|in|for|"
    rf"under)\s(?:the\s|my\s|this\s|that\s|each\s)?(?:nodes?|allocatable|capacity)\b"
)


def _node_without_gpu_said(m: re.Match[str], d: Draft) -> bool:
    """The reading a describe block would give (Allocatable without nvidia.com/gpu), where no
    block gave one, and the node said to be a GPU node (checks/k8s_resources.py judges it)."""
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_node_allocatable", (K8sItem(name="nvidia.com/gpu", value="0"),))
    d.named.append(("gpu-node-said", d.scan_line))
    return True


# A pod said to ask for no GPU ("a pod without any GPU request", "containers that don't request
# nvidia.com/gpu", "CPU-only pods", "no GPU limit"): the reading a pod's Limits without a GPU
# resource gives (cluster.py), for the pod that then sees GPUs (k8s-pod-extra-gpus). Not "a pod
# with no GPU", which says what it sees.
_POD_ASKS_NONE = (
    r"\b(?:pods?|containers?|deployments?|jobs?)\b[^\n]{0,30}?\b(?:without|with no|w/o)\s"
    r"(?:any\s|an?\s)?(?:gpu (?:requests?|limits?|resources?)|nvidia\.com/gpu|"
    r"requesting (?:a |any )?gpus?)\b"
    r"|\b(?:pods?|containers?)\b[^\n]{0,30}?\b(?:does|do|did)\s?(?:n[o']?t|n't)\s"
    r"(?:request|ask for|specify|set|need)\w{0,2}\s(?:any\s|an?\s)?(?:gpus?|nvidia\.com/gpu)\b"
    r"|\b(?:non-gpu|non gpu|cpu-only|cpu only)\s(?:pods?|containers?|workloads?)\b"
)


def _pod_asks_none_said(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_gpu_requested", 0)
    return True


# Pods said to share one GPU ("sharing a single GPU instance across multiple pods", "several
# pods use the same GPU"): what people do by leaving nvidia.com/gpu out of the pods' limits
# (checks/k8s_unrequested.py). Not "GPU sharing" alone, which time-slicing and MPS also are.
_PODS_SHARE_GPU = (
    r"\bshar(?:e|es|ed|ing)\s(?:a |one |the |our |my )?(?:single |same )?gpus?\b[^\n]{0,40}?"
    r"\b(?:across|between|among|amongst|by)\s(?:multiple |several |many |all |the |our |two )?"
    r"(?:[\w-]{1,20}\s)?pods\b"
    r"|\b(?:multiple|several|many|two|all|both|our|the|these|\d{1,3})\s(?:[\w-]{1,20}\s)?"
    r"pods\b[^\n]{0,30}?\b(?:(?:share|sharing)\s(?:a |one |the |our )?(?:single |same )?gpu"
    r"|(?:use|using)\s(?:one|the same|a single)\sgpu)\b"
)


def _pods_share_gpu_said(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_gpu_shared_said", True)
    return True


def _gpu_sharing(m: re.Match[str], d: Draft) -> bool:
    """A GPU-sharing scheduler's extended resource (HAMi's nvidia.com/gpumem, Volcano's
    volcano.sh/vgpu-*, gpu-manager's tencent.com/vcuda-*, gpushare's aliyun.com/gpu-mem): a
    Kubernetes cluster whose GPUs that scheduler's device plugin splits."""
    put(d.platform, "kubernetes", True)
    d.note(
        "a GPU-sharing scheduler's Kubernetes resources are named (HAMi, Volcano vGPU, "
        "gpu-manager or gpushare): that scheduler's device plugin splits the GPUs"
    )
    return True


def _k8s_distribution(m: re.Match[str], d: Draft) -> bool:
    """K3s, RKE2 and MicroK8s: Kubernetes with a containerd of their own (its config under
    /var/lib/rancher/<name>/agent/etc/containerd/ or the snap), not the system's."""
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_distribution", m.group("name").lower())
    return True


def _runtime_class(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.runtime, "runtime_class_nvidia", m.group("name").lower().startswith("nvidia"))
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        ("client version:", "server version:"),
        # `kubectl version`: "Client Version: v1.28.2", "Server Version: v1.28.5+k3s1" (older
        # kubectl: "Client Version: version.Info{Major:...}"); not `docker info`'s "Server
        # Version: 24.0.7"
        _rx(
            r"^\s{0,4}(?:Client|Server) Version:\s{0,4}(?:v1\.\d{1,2}\.\d{1,3}(?:\+(?P<name>k3s|"
            r"rke2)\w{0,8})?(?![\w.])|version\.Info\{)"
        ),
        _kubectl_version,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        ("k3s", "rke2", "microk8s"),
        _rx(r"\b(?P<name>k3s|rke2|microk8s)\b"),
        _k8s_distribution,
    ),
    _Rule(
        ("k8s", "operator", "runtimeclassname", "plugin"),
        # "k8s" as a folder of an image or URL path (nvcr.io/nvidia/k8s/cuda-sample, the CUDA
        # sample `docker run` starts) names a repository, not a cluster
        _rx(r"(?<!/)\bk8s\b(?!/)|\bgpu[- ]operator\b|\bruntimeClassName\b|\bdevice[- ]plugin\b"),
        _kubernetes,
    ),
    _Rule(
        "runtimeclassname",
        _rx(r"\bruntimeClassName\s{0,4}:\s{0,4}[\"']?(?P<name>[a-z0-9][a-z0-9.-]{0,62})"),
        _runtime_class,
    ),
    _Rule(
        "kubectl",
        _rx(r"\bkubectl\b"),
        _kubernetes,
    ),
    _Rule(
        ("vcuda-", "vgpu", "gpumem", "gpucores", "aliyun.com/gpu-"),
        _rx(
            r"\b(?:tencent\.com/vcuda-(?:core|memory)|nvidia\.com/(?:gpumem(?:-percentage)?|"
            r"gpucores|vgpu)|volcano\.sh/vgpu-(?:number|memory|cores)|aliyun\.com/gpu-(?:mem|"
            r"count|core))\b"
        ),
        _gpu_sharing,
    ),
    _Rule(
        "kubernetes",
        _rx(r"\bkubernetes\b"),
        _kubernetes,
    ),
    # Kubernetes's own vocabulary in prose and logs: pod states and events, its objects and
    # daemons, and the managed or packaged distributions by name
    _Rule(
        (
            "backoff",
            "containercreating",
            "podinitializing",
            "admissionerror",
            "failedscheduling",
            "failedcreatepodsandbox",
        ),
        _rx(
            r"\b(?:CrashLoopBackOff|ImagePullBackOff|ContainerCreating|PodInitializing|"
            r"UnexpectedAdmissionError|FailedScheduling|FailedCreatePodSandBox)\b"
        ),
        _kubernetes,
    ),
    _Rule(
        "pod",
        _rx(r"\bpods?\b[^.\n]{0,40}\b(?:pending|unschedulable)\b"),
        _kubernetes,
    ),
    _Rule(
        ("daemonset", "kube-system", "kubelet", "kubeadm", "clusterpolicy", "nodeselector"),
        _rx(r"\b(?:daemonsets?|kube-system|kubelet|kubeadm|clusterpolicy|nodeSelector)\b"),
        _kubernetes,
    ),
    _Rule(
        ("eks", "gke", "aks", "openshift", "okd", "k0s"),
        _rx(r"\b(?P<name>EKS|GKE|AKS|OpenShift|OKD|k0s)\b"),
        _k8s_distribution,
    ),
    _Rule(
        ("nvidia.com/gpu", "nvidia.com/mig-"),
        # "nvidia.com/gpu=0" is a CDI device name; MIG's resources too ("nvidia.com/mig-1g.10gb")
        _rx(r"nvidia\.com/gpu\b(?!=)|nvidia\.com/mig-\dg\.\d{1,3}gb\b"),
        _kubernetes,
    ),
    _Rule(
        ("pod", "container", "deployment", "job"),
        _rx(_POD_ASKS_NONE),
        _pod_asks_none_said,
    ),
    _Rule(("pods",), _rx(_PODS_SHARE_GPU), _pods_share_gpu_said),
    _Rule(
        ("nvidia.com/gpu", "gpu resource", "allocatable gpu", "gpu capacity"),
        _rx(_NODE_WITHOUT_GPU),
        _node_without_gpu_said,
    ),
)
