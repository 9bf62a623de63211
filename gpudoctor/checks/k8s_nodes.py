"""The GPU nodes as the NVIDIA stack on Kubernetes sees them: the device plugin's MIG strategy
against the node's MIG layout (`k8s-mig-strategy`), and the GPU Operator's DaemonSets against the
nodes they should run on (`gpu-operator-nodes`, `k8s-nfd-labels`).

MIG strategies (k8s-device-plugin, internal/rm/device_map.go and internal/lm/mig-strategy.go):
`single` needs every GPU of the node in MIG mode, each split into instances of one and the same
profile; the plugin refuses anything else ('invalid MIG configuration', 'all devices on the
node must be configured with the same migEnabled value') and GPU feature discovery labels the
product ...-MIG-INVALID with a count of 0 ('Invalid configuration detected for
mig-strategy=single'). `mixed` advertises each profile as nvidia.com/mig-<profile>.

The GPU Operator deploys each operand's DaemonSet on the nodes labelled
nvidia.com/gpu.deploy.<operand>=true, which it sets on nodes with nvidia.com/gpu.present=true,
itself set where Node Feature Discovery found an NVIDIA PCI device
(feature.node.kubernetes.io/pci-10de.present; gpu-operator controllers/state_manager.go).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.k8s_sharing import as_dict
from gpudoctor.findings import ERROR, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts, K8sDaemonSet
    from gpudoctor.matrix.model import Matrix

MIG = "k8s-mig-strategy"
NODES = "gpu-operator-nodes"
NFD = "k8s-nfd-labels"
STATE = "k8s-gpu-node-state"

_NFD = ("gpu-operator-node-feature-discovery", "node-feature-discovery", "nfd-")
_FAILING = ("CrashLoopBackOff", "Error", "RunContainerError")
_PLUGIN_PODS = ("nvidia-device-plugin", "gpu-feature-discovery")
_MIG_FIX = (
    "with GPUs split into different profiles, or some GPUs not in MIG mode, run the device plugin "
    "(and GPU feature discovery) with migStrategy=mixed (Helm `--set migStrategy=mixed`, GPU "
    "Operator `--set mig.strategy=mixed`) and ask for nvidia.com/mig-<profile>; for "
    "migStrategy=single put every GPU of the node in MIG mode with one profile (the MIG "
    "Manager's nvidia.com/mig.config=all-1g.10gb-style configs, or `nvidia-smi mig -cgi`)"
)


def _layout(facts: HostFacts) -> tuple[list[str], int, int]:
    """The MIG profiles on the node's GPUs, and its GPUs with MIG on and with MIG off."""
    profiles: list[str] = []
    on = off = 0
    for gpu in facts.nvml.gpus:
        if gpu.mig_mode_current is True or gpu.mig_devices:
            on += 1
        elif gpu.mig_mode_current is False:
            off += 1
        for mig in gpu.mig_devices:
            name = (mig.name or "").replace("MIG ", "").strip()
            if name and name not in profiles:
                profiles.append(name)
    return profiles, on, off


def _plugin_failing(facts: HostFacts) -> bool:
    if facts.platform.k8s_plugin_crashing:
        return True
    pods = facts.report.stack_pods if facts.report is not None else ()
    return any(
        p.name.startswith(_PLUGIN_PODS) and any(s in p.status for s in _FAILING) for p in pods
    )


def check_k8s_mig_strategy(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    strategy = facts.platform.k8s_mig_strategy
    product = as_dict(facts.platform.k8s_node_labels).get("nvidia.com/gpu.product", "")
    profiles, on, off = _layout(facts)
    ev: list[tuple[str, object]] = [
        ("mig_strategy", strategy),
        ("mig_profiles", ", ".join(profiles) or None),
        ("gpus_mig_on", on),
        ("gpus_mig_off", off),
    ]
    if product.upper().endswith("-MIG-INVALID"):
        return [
            finding(
                MIG,
                ERROR,
                f"GPU feature discovery labels the node's product {product}: its GPUs do not "
                "fit migStrategy=single",
                detail="GFD writes -MIG-INVALID with nvidia.com/gpu.count=0 when, under the "
                "single strategy, a GPU in MIG mode has no MIG devices, GPUs with MIG on and off "
                "are mixed, or the MIG devices are of more than one profile; the device plugin "
                "refuses the same layout, so the node advertises no GPU",
                fix=_MIG_FIX,
                evidence=[*ev, ("gpu_product", product)],
            )
        ]
    if strategy != "single":
        if strategy is None:
            return []
        return [finding(MIG, OK, f"the device plugin's MIG strategy is {strategy}", evidence=ev)]
    why = None
    if len(profiles) > 1:
        why = f"the node's MIG devices are of {len(profiles)} profiles ({', '.join(profiles)})"
    elif on and off:
        why = f"{on} of the node's GPUs are in MIG mode and {off} are not"
    if why is not None:
        return [
            finding(
                MIG,
                ERROR,
                f"migStrategy=single, but {why}",
                detail="the single strategy needs every GPU of the node in MIG mode with one "
                "profile; the device plugin fails to build its device map ('invalid MIG "
                "configuration', 'all devices on the node must be configured with the same "
                "migEnabled value') and crash-loops, so the node advertises no GPU",
                fix=_MIG_FIX,
                evidence=ev,
            )
        ]
    if _plugin_failing(facts) and not profiles:
        return [
            finding(
                MIG,
                WARN,
                "the device plugin runs with migStrategy=single and crash-loops",
                detail="with the single strategy the plugin exits at start when the node's MIG "
                "layout is not uniform (GPUs of more than one MIG profile, or some GPUs not in "
                "MIG mode, or a GPU in MIG mode with no instances); the report does not show the "
                "layout (`nvidia-smi -L` on the node lists the MIG devices)",
                fix="read the plugin's log for 'invalid MIG configuration'; " + _MIG_FIX,
                evidence=ev,
            )
        ]
    return [finding(MIG, OK, "the device plugin's MIG strategy is single", evidence=ev)]


# operand DaemonSet name prefix -> (component, where to look when its pods are not ready), in the
# order the operator's stages run (driver, toolkit, validator, then what waits for them)
_COMPONENTS: tuple[tuple[str, str, str], ...] = (
    (
        "nvidia-driver-daemonset",
        "the driver container",
        "`kubectl logs -n gpu-operator -l app=nvidia-driver-daemonset -c nvidia-driver-ctr` "
        "(kernel headers, Secure Boot, a driver already loaded on the node)",
    ),
    (
        "nvidia-container-toolkit-daemonset",
        "the container toolkit",
        "its pod's log and the node's containerd/CRI-O config it edits",
    ),
    (
        "nvidia-operator-validator",
        "the validator",
        "`kubectl describe pod` of its pod: the init container it is held in",
    ),
    (
        "nvidia-device-plugin-daemonset",
        "the device plugin",
        "its pod's log (NVML, MIG strategy) and the node's Allocatable nvidia.com/gpu",
    ),
    ("gpu-feature-discovery", "GPU feature discovery", "its pod's log (NVML)"),
    ("nvidia-dcgm-exporter", "the DCGM exporter", "its pod's log (DCGM, the hostengine)"),
    ("nvidia-dcgm", "the DCGM hostengine", "its pod's log"),
    ("nvidia-mig-manager", "the MIG manager", "its log and the nvidia.com/mig.config.state label"),
)
# DaemonSets whose desired 0 says nothing: the MIG manager runs only on MIG-capable GPUs, the
# sandbox operands only on nodes set up for virtual machines
_OPTIONAL = ("nvidia-mig-manager", "nvidia-sandbox", "nvidia-vfio", "nvidia-vgpu", "nvidia-kata")


def _component(ds: K8sDaemonSet) -> tuple[int, str, str]:
    for rank, (prefix, what, look) in enumerate(_COMPONENTS):
        if ds.name.startswith(prefix):
            return rank, what, look
    return len(_COMPONENTS), ds.name, "its pods' status and logs"


def check_gpu_operator_nodes(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    sets = facts.platform.k8s_daemonsets
    operands = [d for d in sets if d.name.startswith(tuple(prefix for prefix, _, _ in _COMPONENTS))]
    if not operands:
        return []
    ev: list[tuple[str, object]] = [
        ("daemonsets", ", ".join(f"{d.name} {d.ready}/{d.desired}" for d in sets))
    ]
    needed = [d for d in operands if not d.name.startswith(_OPTIONAL)]
    if needed and all(d.desired == 0 for d in needed):
        nfd = any(d.name.startswith(_NFD) for d in sets)
        if not nfd:
            return [
                finding(
                    NFD,
                    WARN,
                    "the GPU Operator's DaemonSets run on no node, and no Node Feature "
                    "Discovery worker is listed",
                    detail="the operator deploys its operands only on nodes labelled "
                    "nvidia.com/gpu.present=true, which it sets where Node Feature Discovery "
                    "labelled an NVIDIA PCI device (feature.node.kubernetes.io/pci-10de.present"
                    "=true): without NFD no node gets the label",
                    fix="deploy NFD with the operator (Helm `--set nfd.enabled=true`) or on its "
                    "own, then check `kubectl get nodes --show-labels | grep pci-10de`",
                    evidence=ev,
                )
            ]
        return [
            finding(
                NODES,
                WARN,
                "the GPU Operator's DaemonSets want 0 pods: no node is labelled for them",
                detail="the operator deploys each operand on nodes whose "
                "nvidia.com/gpu.deploy.<operand> label is true, set where "
                "nvidia.com/gpu.present=true (from NFD's pci-10de.present label); a node with "
                "nvidia.com/gpu.deploy.operands=false, or whose GPU NFD did not label, gets none",
                fix="`kubectl get nodes --show-labels | grep -e pci-10de -e nvidia.com/gpu`: "
                "the GPU nodes need feature.node.kubernetes.io/pci-10de.present=true (NFD's "
                "worker must run on them: check its tolerations for the nodes' taints) and no "
                "nvidia.com/gpu.deploy.*=false",
                evidence=ev,
            )
        ]
    short = sorted((d for d in operands if d.ready < d.desired), key=lambda d: _component(d)[0])
    if short:
        first = short[0]
        _, what, look = _component(first)
        others = ", ".join(d.name for d in short[1:])
        detail = (
            f"{first.name} has {first.ready} of {first.desired} pods ready: {what} is not up on "
            f"{first.desired - first.ready} node(s)"
        )
        if others:
            detail += (
                f"; the operator's stages run in order (driver, toolkit, validator, then the "
                f"rest), so the others not ready ({others}) may only wait on it"
            )
        return [
            finding(
                NODES,
                WARN,
                f"the GPU Operator's {what} is not ready on every node ({first.name} "
                f"{first.ready}/{first.desired})",
                detail=detail,
                fix=f"`kubectl get pods -n gpu-operator -o wide | grep {first.name}` for the "
                f"node whose pod is not ready, then {look}",
                evidence=ev,
            )
        ]
    return [
        finding(
            NODES,
            OK,
            "the GPU Operator's DaemonSets have all their pods ready",
            evidence=ev,
        )
    ]


def check_k8s_gpu_node_state(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """A GPU node whose labels or STATUS say it cannot take GPU pods: the MIG Manager's
    nvidia.com/mig.config.state=failed (it could not apply nvidia.com/mig.config; gpu-operator
    assets/state-mig-manager, mig-parted's reconfigure script), or a node with nvidia.com/gpu
    labels that is NotReady or cordoned (SchedulingDisabled)."""
    labels = as_dict(facts.platform.k8s_node_labels)
    state = labels.get("nvidia.com/mig.config.state", "")
    config = labels.get("nvidia.com/mig.config")
    ev: list[tuple[str, object]] = [("mig_config", config), ("mig_config_state", state or None)]
    if "failed" in state.split(","):
        wanted = f"nvidia.com/mig.config={config}" if config else "the nvidia.com/mig.config label"
        return [
            finding(
                STATE,
                ERROR,
                f"the MIG Manager failed to apply {wanted} (nvidia.com/mig.config.state=failed)",
                detail="the MIG Manager sets mig.config.state to failed when it cannot put the "
                "GPUs in the layout the node's nvidia.com/mig.config label names: a config name "
                "its ConfigMap does not define, GPUs still in use by processes or by the GPU "
                "Operator's own clients, or a MIG mode change that needs a GPU reset the node "
                "could not do; the node keeps its old layout and its MIG resources do not change",
                fix="read the MIG Manager's log on the node (`kubectl logs -n gpu-operator -l "
                "app=nvidia-mig-manager`); check that the label names a config of its ConfigMap "
                "(`kubectl get cm -n gpu-operator default-mig-parted-config -o yaml`), stop the "
                "GPU workloads on the node, then set the label again",
                evidence=ev,
            )
        ]
    nodes = facts.platform.k8s_gpu_node_states
    if nodes:
        shown = ", ".join(f"{n.name} ({n.value})" for n in nodes[:6])
        down = [n for n in nodes if not n.value.startswith("Ready")]
        return [
            finding(
                STATE,
                WARN,
                f"GPU node(s) not taking pods: {shown}",
                detail=(
                    "a NotReady node's kubelet does not report to the API server (it stopped, the "
                    "node lost its network, or its container runtime failed), so no pod is "
                    "scheduled there and its GPUs are not offered"
                    if down
                    else "a cordoned node (SchedulingDisabled) takes no new pods: someone ran "
                    "`kubectl cordon` or `drain`, or the GPU Operator's driver upgrade cordoned "
                    "it while it replaces the driver"
                ),
                fix=(
                    "`kubectl describe node NODE` (its Conditions and events), then on the node "
                    "`systemctl status kubelet` and `journalctl -u kubelet`, and the container "
                    "runtime's status"
                    if down
                    else "if no driver upgrade is under way (`kubectl get nodes -l "
                    "nvidia.com/gpu-driver-upgrade-state`), `kubectl uncordon NODE`"
                ),
                evidence=[*ev, ("nodes", shown)],
            )
        ]
    if state == "success":
        return [finding(STATE, OK, "the MIG Manager applied the node's MIG config", evidence=ev)]
    return []


CHECKS = (check_k8s_mig_strategy, check_gpu_operator_nodes, check_k8s_gpu_node_state)
