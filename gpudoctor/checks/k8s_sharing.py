"""GPU sharing and scheduling on Kubernetes, judged from the objects one paste shows (a pod, a
node, the NVIDIA device plugin's config; pasted/k8s_objects.py reads them).

- k8s-gpu-resource-name: the pod asks for a GPU resource its node does not advertise. The NVIDIA
  device plugin (github.com/NVIDIA/k8s-device-plugin, README) advertises whole GPUs as
  nvidia.com/gpu; with time-slicing or MPS and renameByDefault as <name>.shared instead; with
  the mixed MIG strategy a GPU in MIG mode as nvidia.com/mig-<profile>, with the single strategy
  its MIG devices as nvidia.com/gpu. Volcano's vGPU device plugin advertises
  volcano.sh/vgpu-number, Alibaba's gpushare aliyun.com/gpu-mem. A pod whose limit names a
  resource its node lacks stays Pending ("Insufficient <resource>").
- k8s-gpu-sharing: the plugin's sharing config against itself and the pod: MPS with the mixed
  MIG strategy is refused at start (cmd/nvidia-device-plugin/main.go), MPS takes at most 48
  clients per GPU (16 below compute capability 7.5; cmd/mps-control-daemon/mps/device.go), and
  failRequestsGreaterThanOne fails a container that asks for more than one shared replica
  (UnexpectedAdmissionError); without it such a container may get the same GPU twice. A config
  that shares nvidia.com/gpu N ways beside a node advertising one per GPU is not applied.
- k8s-gpu-node-selector: the pod's nodeSelector / required node affinity on nvidia.com/ labels
  against the labels its node carries (GPU feature discovery writes gpu.product sanitised:
  "NVIDIA-A100-SXM4-80GB", with "-SHARED" when shared without renameByDefault).
- k8s-ray-num-gpus: a KubeRay group's rayStartParams num-gpus against its Ray container's
  nvidia.com/gpu limit: Ray schedules GPU tasks by num-gpus, the container sees only the GPUs
  its limit got.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.findings import ERROR, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts, K8sItem
    from gpudoctor.matrix.model import Matrix

NAME_CODE = "k8s-gpu-resource-name"
SHARING = "k8s-gpu-sharing"
SELECTOR = "k8s-gpu-node-selector"
RAY = "k8s-ray-num-gpus"

# the resources a node's device plugin advertises, judged against a pod's: NVIDIA's (whole
# GPUs, shared replicas, MIG devices) and the count resource of the GPU-sharing schedulers whose
# device plugin advertises it on the node (Volcano's vGPU, Alibaba's gpushare)
GPU_RESOURCE = re.compile(
    r"^(?:nvidia\.com/(?:gpu|mig-\d{1,2}g\.\d{1,3}gb(?:\+me)?)(?:\.shared)?|"
    r"volcano\.sh/vgpu-number|aliyun\.com/gpu-(?:mem|count))$"
)
_MIG = re.compile(r"^nvidia\.com/mig-")
_MPS_MAX_CLIENTS = 48  # from compute capability 7.5 (16 before)
_SCHEDULERS = {
    "volcano.sh/": "Volcano's vGPU device plugin (volcano-vgpu-device-plugin)",
    "aliyun.com/": "Alibaba's gpushare device plugin (gpushare-device-plugin)",
}


def as_dict(items: tuple[K8sItem, ...]) -> dict[str, str]:
    """A pasted object's names and values (a node's labels, a pod's resources) as a dict."""
    return {item.name: item.value for item in items}


def other_gpu_resources(items: Iterable[K8sItem]) -> list[str]:
    """The GPU resources other than nvidia.com/gpu that a node advertises a non-zero count of
    (MIG devices, shared replicas, a GPU-sharing scheduler's), sorted, each once."""
    return sorted(
        {
            item.name
            for item in items
            if item.name != "nvidia.com/gpu"
            and item.value not in ("", "0")
            and GPU_RESOURCE.match(item.name)
        }
    )


def _int(value: str) -> int:
    return int(value) if value.isdecimal() else 0


def pod_gpu_asks(facts: HostFacts) -> dict[str, int]:
    """The GPU resources a pasted pod asks for: its containers' limits read as an object, and
    the nvidia.com/gpu of a `kubectl describe pod` Limits/Requests block, which the line reader
    keeps apart (k8s_gpu_requested; 0 there is a pod asking for no GPU)."""
    p = facts.platform
    asked = {k: _int(v) for k, v in as_dict(p.k8s_pod_resources).items() if GPU_RESOURCE.match(k)}
    if "nvidia.com/gpu" not in asked and p.k8s_gpu_requested:
        asked["nvidia.com/gpu"] = p.k8s_gpu_requested
    return asked


def check_k8s_gpu_resource_name(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    asked = pod_gpu_asks(facts)
    node = {k: _int(v) for k, v in as_dict(p.k8s_node_resources).items()}
    ev: list[tuple[str, object]] = [
        ("pod_asks", ", ".join(f"{k}: {v}" for k, v in asked.items()) or None),
        ("node_advertises", ", ".join(f"{k}: {v}" for k, v in node.items()) or None),
    ]
    if not asked:
        return [finding(NAME_CODE, NA, "no pod asking for a GPU resource was read", evidence=ev)]
    if node:
        return _against_node(facts, asked, node, ev)
    if p.k8s_sharing is not None or p.k8s_mig_strategy is not None:
        return _against_config(facts, asked, ev)
    return [
        finding(
            NAME_CODE,
            NA,
            "the pod's GPU resources were read, not what its node advertises",
            evidence=ev,
        )
    ]


def _against_node(
    facts: HostFacts, asked: dict[str, int], node: dict[str, int], ev: list[tuple[str, object]]
) -> list[Finding]:
    other_gpus = [
        k for k, v in node.items() if v and GPU_RESOURCE.match(k) and k != "nvidia.com/gpu"
    ]
    for name, n in asked.items():
        have = node.get(name, 0)
        if have == 0 and name == "nvidia.com/gpu" and not other_gpus:
            # a node with no GPU resource at all: k8s-gpu-request and k8s-gpu-unhealthy say why
            return [
                finding(
                    NAME_CODE,
                    NA,
                    "the node advertises no GPU resource (k8s-gpu-request judges the pod's "
                    "nvidia.com/gpu against it)",
                    evidence=ev,
                )
            ]
        if have == 0:
            return [_not_advertised(facts, name, n, node, ev)]
        if n > have and name != "nvidia.com/gpu":  # nvidia.com/gpu: k8s-gpu-request
            return [
                finding(
                    NAME_CODE,
                    ERROR,
                    f"the pod asks for {name}: {n}, the node advertises {have}",
                    detail="the scheduler takes all of a container's extended resources from "
                    "one node, so the pod stays Pending with 'Insufficient " + name + "'",
                    fix=f"ask for at most {have} {name}, or raise what the node advertises "
                    "(more replicas in the sharing config, more MIG devices of the profile)",
                    evidence=ev,
                )
            ]
    shown = ", ".join(f"{k}: {v}" for k, v in asked.items())
    return [
        finding(NAME_CODE, OK, f"the node advertises what the pod asks for ({shown})", evidence=ev)
    ]


def _not_advertised(
    facts: HostFacts, name: str, n: int, node: dict[str, int], ev: list[tuple[str, object]]
) -> Finding:
    gpu_names = [k for k, v in node.items() if v and GPU_RESOURCE.match(k)]
    offered = ", ".join(f"{k}: {node[k]}" for k in gpu_names) or "no GPU resource"
    why, fix = _why_missing(facts, name, gpu_names)
    return finding(
        NAME_CODE,
        ERROR,
        f"the pod asks for {name}: {n}; the node advertises {offered}",
        detail=f"a pod is placed only on a node that advertises every extended resource its "
        f"limits name, so it stays Pending with 'Insufficient {name}': {why}",
        fix=fix,
        evidence=ev,
    )


def _why_missing(facts: HostFacts, name: str, offered: list[str]) -> tuple[str, str]:
    if name + ".shared" in offered:
        return (
            f"the device plugin shares the GPUs with renameByDefault, so it advertises "
            f"{name}.shared instead of {name}",
            f"ask for `{name}.shared: 1` in the pod's limits, or set renameByDefault: false in "
            "the device plugin's sharing config (then shared GPUs keep the name " + name + ")",
        )
    if name.endswith(".shared") and name[: -len(".shared")] in offered:
        base = name[: -len(".shared")]
        return (
            f"the device plugin advertises {base} (no sharing, or sharing without "
            "renameByDefault, which keeps the name)",
            f"ask for `{base}` in the pod's limits, or set renameByDefault: true in the "
            "device plugin's sharing config",
        )
    migs = [k for k in offered if _MIG.match(k)]
    if name == "nvidia.com/gpu" and migs:
        return (
            "the device plugin runs the mixed MIG strategy, which advertises a GPU in MIG mode "
            f"only as its MIG devices ({', '.join(migs)}), not as nvidia.com/gpu",
            f"ask for a MIG device (`{migs[0]}: 1`), or run the plugin with migStrategy: single "
            "(MIG devices of one profile then count as nvidia.com/gpu), or take the GPU out of "
            "MIG mode",
        )
    if _MIG.match(name):
        return _mig_missing(facts, name, migs, offered)
    for prefix, plugin in _SCHEDULERS.items():
        if name.startswith(prefix):
            return (
                f"{name} is advertised by {plugin}, which has not registered it on this node "
                "(not deployed there, its pod failing, or the node not labelled for it)",
                f"check that {plugin.split(' (')[0]} runs on the node (`kubectl get pods -A -o "
                "wide | grep device-plugin`) and read its log; `kubectl describe node` lists "
                f"{name} under Allocatable once it has registered",
            )
    return (
        "no device plugin registered it on this node",
        f"ask for a resource the node advertises ({', '.join(offered) or 'none'}), or deploy "
        f"the device plugin that advertises {name} there",
    )


def _mig_missing(
    facts: HostFacts, name: str, migs: list[str], offered: list[str]
) -> tuple[str, str]:
    if migs:
        return (
            f"the node's GPUs have MIG devices of other profiles ({', '.join(migs)}), none of "
            f"{name[len('nvidia.com/mig-') :]}",
            f"ask for one of {', '.join(migs)}, or change the MIG layout (the MIG Manager's "
            "nvidia.com/mig.config label, or `nvidia-smi mig -cgi`/`-cci`) to one with "
            f"{name[len('nvidia.com/mig-') :]} instances",
        )
    strategy = facts.platform.k8s_mig_strategy
    if "nvidia.com/gpu" in offered and strategy != "none":
        return (
            "the device plugin advertises MIG devices as nvidia.com/gpu (the single MIG "
            "strategy), never under their profile's name",
            "ask for `nvidia.com/gpu`, or run the device plugin with migStrategy: mixed",
        )
    return (
        "the device plugin advertises no MIG devices: the GPUs are not in MIG mode or have no "
        "instances, or the plugin's migStrategy is none",
        "create the MIG instances (the GPU Operator's nvidia.com/mig.config label) and run the "
        "device plugin with migStrategy: mixed",
    )


def _against_config(
    facts: HostFacts, asked: dict[str, int], ev: list[tuple[str, object]]
) -> list[Finding]:
    """No node shown: what the plugin's config makes it advertise, where that is certain."""
    p = facts.platform
    shared = as_dict(p.k8s_sharing_resources)
    for name, n in asked.items():
        if p.k8s_sharing_rename and name + ".shared" in shared:
            why, fix = _why_missing(facts, name, [name + ".shared"])
        elif name.endswith(".shared") and name not in shared and p.k8s_sharing is not None:
            why, fix = _why_missing(facts, name, [name[: -len(".shared")]])
        elif _MIG.match(name) and p.k8s_mig_strategy == "single":
            why, fix = _mig_missing(facts, name, [], ["nvidia.com/gpu"])
        elif _MIG.match(name) and p.k8s_mig_strategy == "none":
            why, fix = _mig_missing(facts, name, [], [])
        else:
            continue
        return [
            finding(
                NAME_CODE,
                ERROR,
                f"the pod asks for {name}: {n}, which the device plugin's config "
                "does not advertise",
                detail=f"the pod stays Pending with 'Insufficient {name}': {why}",
                fix=fix,
                evidence=ev,
            )
        ]
    return [
        finding(
            NAME_CODE,
            OK,
            "the device plugin's config advertises the resources the pod asks for",
            evidence=ev,
        )
    ]


def check_k8s_gpu_sharing(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    shared = as_dict(p.k8s_sharing_resources)
    ev: list[tuple[str, object]] = [
        ("sharing", p.k8s_sharing),
        ("resources", ", ".join(f"{k}: {v}" for k, v in shared.items()) or None),
        ("rename_by_default", p.k8s_sharing_rename),
        ("fail_requests_greater_than_one", p.k8s_sharing_fail_over_one),
        ("mig_strategy", p.k8s_mig_strategy),
    ]
    if p.k8s_sharing is None:
        return [finding(SHARING, NA, "no device plugin sharing config was read", evidence=ev)]
    if p.k8s_sharing == "mps":
        refused = _mps_refused(facts, shared)
        if refused is not None:
            return [
                finding(SHARING, ERROR, refused[0], detail=refused[1], fix=refused[2], evidence=ev)
            ]
    unapplied = _config_not_applied(facts, shared)
    if unapplied is not None:
        return [
            finding(SHARING, WARN, unapplied[0], detail=unapplied[1], fix=unapplied[2], evidence=ev)
        ]
    pod = {k: _int(v) for k, v in as_dict(p.k8s_pod_resources).items()}
    node = as_dict(p.k8s_node_resources)
    for name, n in pod.items():
        is_shared = name in shared or (name.endswith(".shared") and name in node)
        if not is_shared or n <= 1:
            continue
        if p.k8s_sharing_fail_over_one:
            return [
                finding(
                    SHARING,
                    ERROR,
                    f"the pod asks for {name}: {n} and the device plugin's "
                    "failRequestsGreaterThanOne refuses more than 1 shared replica",
                    detail="the plugin fails the container's allocation at admission ('request "
                    "for ... too large: maximum request size for shared resources is 1'); the "
                    "pod fails with UnexpectedAdmissionError and is not retried",
                    fix=f"ask for `{name}: 1` per container and scale out with more pods; for "
                    "several whole GPUs use a resource that is not shared; delete the failed pod",
                    evidence=ev,
                )
            ]
        return [
            finding(
                SHARING,
                WARN,
                f"the pod asks for {n} replicas of the shared {name}: replicas are not more GPUs",
                detail=f"with {p.k8s_sharing} the device plugin hands out replicas of the GPUs; "
                "several replicas given to one container may be the same GPU, so the "
                "container can see fewer GPUs than it asked for and gets no larger share of "
                "one (the plugin's README; failRequestsGreaterThanOne: true refuses such "
                "requests)",
                fix=f"ask for `{name}: 1` per container; for several whole GPUs use a node or "
                "resource that is not shared",
                evidence=ev,
            )
        ]
    shown = ", ".join(f"{k} x{v}" for k, v in shared.items())
    return [
        finding(SHARING, OK, f"the device plugin shares by {p.k8s_sharing}: {shown}", evidence=ev)
    ]


def _config_not_applied(facts: HostFacts, shared: dict[str, str]) -> tuple[str, str, str] | None:
    """A sharing config that gives nvidia.com/gpu N replicas beside a node that advertises only
    its GPUs: the plugin advertises each GPU N times once the config is applied (README,
    "Shared Access to GPUs": 10 replicas on 8 GPUs, "Capacity: nvidia.com/gpu: 80") and GPU
    feature discovery labels nvidia.com/gpu.replicas, so a Capacity equal to the GPUs (GFD's
    nvidia.com/gpu.count, or the GPUs the paste lists) or a replicas label of 1 means the plugin
    runs without this config. Renamed replicas (nvidia.com/gpu.shared) are k8s-gpu-resource-
    name's to judge."""
    p = facts.platform
    replicas = _int(shared.get("nvidia.com/gpu", ""))
    if replicas < 2 or p.k8s_sharing_rename:
        return None
    advertised = p.k8s_gpu_capacity if p.k8s_gpu_capacity is not None else p.k8s_gpu_allocatable
    labels = as_dict(p.k8s_node_labels)
    count = labels.get("nvidia.com/gpu.count", "")
    gpus = int(count) if count.isdecimal() else len(facts.nvml.gpus)
    same = bool(advertised) and advertised == gpus
    if not (same or labels.get("nvidia.com/gpu.replicas") == "1"):
        return None
    shown = f"{advertised} nvidia.com/gpu" if same else "nvidia.com/gpu.replicas=1"
    return (
        f"the device plugin's config shares nvidia.com/gpu {replicas} ways, but the node shows "
        f"{shown}: the config is not applied",
        f"with this config the plugin would advertise each GPU {replicas} times (and GPU feature "
        f"discovery label nvidia.com/gpu.replicas={replicas}); the node shows one per GPU, so "
        "the plugin on it runs without this config: the ConfigMap is not the one the plugin was "
        "deployed with, the node's nvidia.com/device-plugin.config label names another entry "
        "of it (or none, with no default set), or the plugin was not restarted after the "
        "ConfigMap changed",
        "deploy the plugin with the config: Helm `--set config.name=<ConfigMap>` and "
        "`--set config.default=<key>` (GPU Operator: the ClusterPolicy's devicePlugin.config."
        "name and .default), or label the node `kubectl label node <node> "
        "nvidia.com/device-plugin.config=<key> --overwrite`; then read the config-manager "
        'sidecar\'s log ("Updating to config: <key>") and restart the device plugin pod',
    )


def _mps_refused(facts: HostFacts, shared: dict[str, str]) -> tuple[str, str, str] | None:
    p = facts.platform
    if p.k8s_mig_strategy == "mixed":
        return (
            "the device plugin's config sets MPS sharing with migStrategy: mixed, which the "
            "plugin refuses",
            "the plugin checks its flags at start and exits with 'using --mig-strategy=mixed is "
            "not supported with MPS' (MPS shares full GPUs only), so its pod restarts and the "
            "node advertises no GPU",
            "use time-slicing (sharing.timeSlicing) to share MIG devices, or migStrategy: none "
            "or single with MPS",
        )
    ccs = [g.compute_capability for g in facts.nvml.gpus if g.compute_capability]
    old = any(_cc_below(cc, (7, 5)) for cc in ccs)
    limit = 16 if old else _MPS_MAX_CLIENTS
    for name, replicas in shared.items():
        if replicas.isdecimal() and int(replicas) > limit:
            return (
                f"the MPS sharing config asks for {replicas} replicas of {name}; an MPS "
                f"server takes at most {limit} clients per GPU",
                "the MPS control daemon refuses the config ('maximum allowed replicas exceeded: "
                f"{replicas} > {limit}': 48 from compute capability 7.5, 16 before) and starts "
                "no MPS daemon, so the node advertises no MPS-shared GPU",
                f"set replicas to {limit} or fewer in sharing.mps.resources; for more pods per "
                "GPU use time-slicing",
            )
    return None


def _cc_below(cc: str, floor: tuple[int, int]) -> bool:
    major, _, minor = cc.partition(".")
    if not (major.isdecimal() and minor.isdecimal()):
        return False
    return (int(major), int(minor)) < floor


def _plain(value: str) -> str:
    """A product label compared as GFD writes it: dashes for spaces, case folded, no NVIDIA
    prefix and no -SHARED suffix."""
    out = value.strip().replace(" ", "-").replace("_", "-").lower()
    out = out[len("nvidia-") :] if out.startswith("nvidia-") else out
    return out[: -len("-shared")] if out.endswith("-shared") else out


def check_k8s_gpu_node_selector(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    wanted = as_dict(p.k8s_pod_selector)
    labels = as_dict(p.k8s_node_labels)
    ev: list[tuple[str, object]] = [
        ("pod_selects", ", ".join(f"{k}={v}" for k, v in wanted.items()) or None),
        ("node_labels", ", ".join(f"{k}={v}" for k, v in labels.items()) or None),
    ]
    if not wanted or not labels:
        return [
            finding(
                SELECTOR,
                NA,
                "a GPU pod's nvidia.com/ node selector and its node's labels were not both read",
                evidence=ev,
            )
        ]
    for key, accepted in wanted.items():
        values = accepted.split(",")
        have = labels.get(key)  # several nodes: their values, "," between
        if have is None:
            return [_selector_error(key, accepted, None, labels, ev)]
        if accepted != "*" and not set(have.split(",")) & set(values):
            return [_selector_error(key, accepted, have, labels, ev)]
    shown = ", ".join(f"{k}={labels[k]}" for k in wanted)
    return [
        finding(SELECTOR, OK, f"the node carries the labels the pod selects ({shown})", evidence=ev)
    ]


def _selector_error(
    key: str, accepted: str, have: str | None, labels: dict[str, str], ev: list[tuple[str, object]]
) -> Finding:
    asked = "any value" if accepted == "*" else accepted.replace(",", " or ")
    if have is None:
        title = f"the pod selects nodes with {key} ({asked}); the node has no such label"
        why = (
            "GPU feature discovery (or the GPU Operator) writes nvidia.com/ labels only for what "
            "it finds: this one is not among the node's"
        )
        fix = (
            f"select on a label the node carries ({', '.join(sorted(labels)[:6])}), or label "
            f"the node (`kubectl label node <node> {key}=<value>`)"
        )
    elif any(_plain(v) == _plain(h) for v in accepted.split(",") for h in have.split(",")):
        title = f"the pod selects {key}={accepted}; the node's label is {key}={have}"
        why = (
            "GPU feature discovery writes the value sanitised (spaces as dashes, the product "
            "name as NVML gives it, 'NVIDIA-' included on newer GPUs, '-SHARED' appended when "
            "the GPU is shared without renameByDefault), and a selector must match it exactly"
        )
        fix = f"select `{key}: {have}` (the value `kubectl get node --show-labels` shows)"
    else:
        title = f"the pod selects {key}={accepted}; the node's label is {key}={have}"
        why = "the node's GPU is not the one the pod asks for"
        fix = f"select `{key}: {have}` to run on this node, or run the pod where such GPUs are"
    return finding(
        SELECTOR,
        ERROR,
        title,
        detail="the scheduler places the pod only on nodes whose labels match its nodeSelector "
        f"and required node affinity, so it stays Pending (\"node(s) didn't match Pod's node "
        f'affinity/selector"): {why}',
        fix=fix,
        evidence=ev,
    )


def check_k8s_ray_num_gpus(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p = facts.platform
    wanted, limit = p.k8s_ray_num_gpus, p.k8s_ray_gpu_limit
    ev = [("num_gpus", wanted), ("gpu_limit", limit)]
    if wanted is None or limit is None:
        return [
            finding(RAY, NA, "no KubeRay group with rayStartParams num-gpus was read", evidence=ev)
        ]
    if wanted == limit:
        return [
            finding(
                RAY,
                OK,
                f"the Ray group's num-gpus ({wanted}) equals its container's nvidia.com/gpu limit",
                evidence=ev,
            )
        ]
    if wanted > limit:
        return [
            finding(
                RAY,
                ERROR,
                f"the Ray group starts Ray with num-gpus {wanted}, its container's "
                f"nvidia.com/gpu limit is {limit}",
                detail="Ray schedules GPU tasks and actors by the GPUs `ray start --num-gpus` "
                f"declares, while the container sees only the {limit} GPU(s) its limit got: "
                "tasks placed on the others fail (CUDA finds no device, or fewer than Ray "
                "assigned)",
                fix=f"set the Ray container's `nvidia.com/gpu: {wanted}` limit, or drop num-gpus "
                "from rayStartParams (KubeRay then takes it from the limit)",
                evidence=ev,
            )
        ]
    return [
        finding(
            RAY,
            WARN,
            f"the Ray group declares num-gpus {wanted} and its container holds {limit} GPU(s)",
            detail=f"Ray uses only the {wanted} GPU(s) num-gpus declares; the other "
            f"{limit - wanted} allocated to the pod stay idle and unavailable to other pods",
            fix=f"set num-gpus to {limit} or drop it from rayStartParams (KubeRay then takes it "
            f"from the limit), or lower the limit to {wanted}",
            evidence=ev,
        )
    ]


CHECKS = (
    check_k8s_gpu_resource_name,
    check_k8s_gpu_sharing,
    check_k8s_gpu_node_selector,
    check_k8s_ray_num_gpus,
)
