"""The GPU Operator's pods on a node: which stage holds the rest, from a pasted `kubectl get pods`
(STATUS "Init:N/M": the first N init containers completed, the (N+1)th runs or fails) or
`kubectl describe pod` (the first init container not completed, its reason and exit code).

The operator's operands wait on each other through init containers, in the order its DaemonSet
assets list them (github.com/NVIDIA/gpu-operator, assets/state-*/0500_daemonset.yaml):

- nvidia-operator-validator: driver-validation, toolkit-validation, cuda-validation,
  plugin-validation (plugin-validation is left out when the device plugin is disabled;
  controllers/object_controls.go, TransformValidatorComponent);
- nvidia-container-toolkit-daemonset: driver-validation;
- nvidia-device-plugin-daemonset and gpu-feature-discovery: toolkit-validation,
  config-manager-init; nvidia-dcgm-exporter, nvidia-dcgm, nvidia-mig-manager: toolkit-validation
  (a shell loop that waits for /run/nvidia/validations/toolkit-ready, which the validator's
  toolkit-validation writes);
- nvidia-driver-daemonset: k8s-driver-manager (unloads a loaded driver, evicts GPU pods);
- the validator's workload pods (validator/manifests/*-workload-validation.yaml):
  nvidia-cuda-validator-* runs vectorAdd in its cuda-validation init container,
  nvidia-device-plugin-validator-* asks for one nvidia.com/gpu and runs vectorAdd in
  plugin-validation.

The validator's stages (cmd/nvidia-validator/main.go) check, in order: a working driver (the
host's nvidia-smi, or the driver container's under /run/nvidia/driver), the toolkit (nvidia-smi
in a container the NVIDIA runtime set up), a CUDA workload, and that the node advertises GPUs
and a pod that asks for one runs. The first stage that does not pass is the one to fix: every
pod after it only waits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from gpudoctor.checks.base import Intent, finding
from gpudoctor.findings import ERROR, INFO, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts, ReportError, StackPod
    from gpudoctor.matrix.model import Matrix

CODE = "gpu-operator-stage"

# pod name prefix -> its init containers in order (a longer prefix first where two share one)
_INITS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "nvidia-operator-validator",
        ("driver-validation", "toolkit-validation", "cuda-validation", "plugin-validation"),
    ),
    ("nvidia-container-toolkit-daemonset", ("driver-validation",)),
    ("nvidia-device-plugin-validator", ("plugin-validation",)),
    ("nvidia-device-plugin-daemonset", ("toolkit-validation", "config-manager-init")),
    ("gpu-feature-discovery", ("toolkit-validation", "config-manager-init")),
    ("nvidia-dcgm-exporter", ("toolkit-validation",)),
    ("nvidia-dcgm", ("toolkit-validation",)),
    ("nvidia-mig-manager", ("toolkit-validation",)),
    ("nvidia-driver-daemonset", ("k8s-driver-manager",)),
    ("nvidia-cuda-validator", ("cuda-validation",)),
)
# What each stage checks (or waits for), and where to look when it does not pass.
_DRIVER = (
    "checks for a working NVIDIA driver: nvidia-smi from a driver installed on the host, or "
    "from the operator's driver container (under /run/nvidia/driver), retried until one runs",
    "read the driver pod's log (`kubectl logs -n gpu-operator -l app=nvidia-driver-daemonset "
    "-c nvidia-driver-ctr`): it names what stops the install (kernel headers or package "
    "repositories, Secure Boot, a driver already loaded on the node); with a driver installed "
    "on the host, check that `nvidia-smi` works there",
)
_TOOLKIT = (
    "runs nvidia-smi in a container the NVIDIA container runtime sets up: it checks that the "
    "container toolkit configured the node's runtime (containerd or CRI-O)",
    "read the nvidia-container-toolkit-daemonset pod's log and this stage's own "
    "(`kubectl logs POD -n gpu-operator -c toolkit-validation`); the toolkit must edit the "
    "config and socket the node's runtime really uses (toolkit env CONTAINERD_CONFIG and "
    "CONTAINERD_SOCKET on K3s, RKE2, MicroK8s) and restart it",
)
_TOOLKIT_WAIT = (
    "only waits for /run/nvidia/validations/toolkit-ready, which nvidia-operator-validator's "
    "toolkit-validation writes once the driver and the container toolkit work on the node",
    "this pod only waits: look at nvidia-operator-validator on the same node (`kubectl get pods "
    "-n gpu-operator -o wide`) and at the driver and toolkit pods before it",
)
_CUDA = (
    "starts a pod nvidia-cuda-validator-* that runs a CUDA sample (vectorAdd) on the node's "
    "GPUs; it passes once that pod completes",
    "read that pod's log and events (`kubectl logs -n gpu-operator -l app=nvidia-cuda-validator "
    "-c cuda-validation`, `kubectl describe pod`): a CUDA error there (a driver older than the "
    "validator's CUDA, a GPU in a bad state) or a pod that cannot start (image pull, pod "
    "security admission, the node's taints)",
)
_PLUGIN = (
    "waits until the node advertises nvidia.com/gpu (or MIG resources), then starts a pod "
    "nvidia-device-plugin-validator-* that asks for one GPU and runs vectorAdd",
    "check the device plugin pod on the node (`kubectl logs -n gpu-operator -l "
    "app=nvidia-device-plugin-daemonset`) and the node's Capacity (`kubectl describe node`): a "
    "plugin that registered no GPU, or every GPU already taken by other pods",
)
_CONFIG = (
    "copies the device plugin / GPU feature discovery configuration that the node's "
    "nvidia.com/device-plugin.config label (or devicePlugin.config.default) names",
    "read its log (`kubectl logs POD -n gpu-operator -c config-manager-init`); check that the "
    "ConfigMap named in devicePlugin.config holds the configuration the label names",
)
_MANAGER = (
    "unloads any NVIDIA driver loaded on the node before the driver container installs its "
    "own, evicting the GPU pods first (and draining the node where that is enabled)",
    "read its log (`kubectl logs POD -n gpu-operator -c k8s-driver-manager`): GPU pods that "
    "cannot be evicted, or a driver installed on the host itself (then install the operator "
    "with driver.enabled=false)",
)
_STAGES = {
    "driver-validation": (0, _DRIVER),
    "k8s-driver-manager": (0, _MANAGER),
    "toolkit-validation": (1, _TOOLKIT),
    "cuda-validation": (3, _CUDA),
    "plugin-validation": (4, _PLUGIN),
    "config-manager-init": (5, _CONFIG),
}
# A pod's own container failing (not an init container): its rank in the operator's order.
_MAIN = (
    ("nvidia-driver-daemonset", 0, "the driver container (nvidia-driver-ctr) fails", _DRIVER[1]),
    (
        "nvidia-container-toolkit-daemonset",
        1,
        "the container toolkit's installer fails",
        "read its log (`kubectl logs POD -n gpu-operator -c nvidia-container-toolkit-ctr`)",
    ),
    (
        "nvidia-device-plugin-daemonset",
        4,
        "the device plugin fails",
        "read its log (`kubectl logs POD -n gpu-operator -c nvidia-device-plugin`): an NVML it "
        "cannot load means the pod did not run under the NVIDIA runtime",
    ),
)
_FINE = ("Running", "Completed", "Succeeded")
_NOT_STARTED = ("PodInitializing", "ContainerCreating", "Waiting")
_PULL = ("ImagePullBackOff", "ErrImagePull", "InvalidImageName")
# Lines that say a pod's sandbox could not be created: then no init container ran at all, and
# Init:0/M says nothing of the first stage.
_SANDBOX = frozenset(
    {"k8s-runtime-class-missing", "dockershim-runtime-class", "containerd-no-nvidia-runtime"}
)
_FAILING = ("CrashLoopBackOff", "Error", "RunContainerError", "CreateContainerError")
# What each stage's own component prints (its pod's log): known lines by their signature's code
# prefix or layer. Such a line names why the stage does not pass, so its finding carries the
# verdict and the stage finding only says where the stack stands (info).
_OWN_LINES: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {
    0: (  # the driver container, the driver manager, the validator's driver-validation
        (
            "gpu-operator-driver",
            "driver-container",
            "driver-manager",
            "gpu-operator-kernel",
            "gpu-operator-dtk",
            "nvidia-repo-key",
        ),
        frozenset({"driver"}),
    ),
    1: (("toolkit-", "gpu-operator-toolkit", "containerd-"), frozenset({"container"})),
    2: (("toolkit-", "gpu-operator-toolkit", "containerd-"), frozenset({"container"})),
    3: (("gpu-operator-validation",), frozenset({"cuda"})),
    4: (("device-plugin-", "gpu-operator-plugin", "kubelet-device-plugin"), frozenset()),
    5: (("device-plugin-config", "device-plugin-option", "device-plugin-sharing"), frozenset()),
}


def _inits(name: str) -> tuple[str, ...]:
    return next((inits for prefix, inits in _INITS if name.startswith(prefix + "-")), ())


def _init_status(status: str) -> tuple[int, int] | None:
    """(N, M) of "Init:N/M"."""
    head, _, tail = status.partition(":")
    done, _, total = tail.partition("/")
    if head != "Init" or not (done.isdecimal() and total.isdecimal()):
        return None
    return int(done), int(total)


class _Held(NamedTuple):
    """Where a pod that is not through stands."""

    rank: int  # its stage's place in the operator's order (0: the driver)
    stage: str  # the init container it is held in, or "" where its own container fails
    what: str  # how the report shows it
    checks: str  # what that stage checks ("" for a failing container)
    fix: str
    failing: bool  # it fails, not only waits
    unstarted: bool = False  # no init container has run yet (Init:0/M, the first one waiting)
    unknown: bool = False  # failing in an init container the report does not name


# The validator's workload pods run the stage's sample themselves.
_WORKLOAD = {
    "nvidia-cuda-validator": "runs a CUDA sample (vectorAdd) on the node's GPUs: the "
    "validator's CUDA workload",
    "nvidia-device-plugin-validator": "asks for one nvidia.com/gpu and runs a CUDA sample "
    "(vectorAdd) on it: the validator's device plugin workload",
}


def _held(pod: StackPod) -> _Held | None:
    """The stage a pod that is not through stands in; None for a pod that is through or whose
    state the check does not know."""
    inits = _inits(pod.name)
    stage, failing, how, unstarted = None, False, "", False
    if pod.init_reason in _PULL:
        return None  # its image is not pulled: no stage ran (the Events line says why)
    if pod.init_failed is not None:
        stage = pod.init_failed
        code = pod.init_exit_code
        failing = pod.init_reason in _FAILING or bool(code)
        how = (pod.init_reason or "waiting") + (f", exit code {code}" if code else "")
        unstarted = inits[:1] == (stage,) and pod.init_reason in _NOT_STARTED
    elif (n := _init_status(pod.status)) is not None:
        done, total = n
        stage = inits[done] if done < min(len(inits), total) else None
        how = f"{pod.status}: {done} of {total} init containers completed"
        unstarted = done == 0
    elif pod.status[5:] in _FAILING and pod.status.startswith("Init:") and len(inits) == 1:
        stage, failing, how = inits[0], True, pod.status
    elif pod.status[5:] in _FAILING and pod.status.startswith("Init:") and inits:
        # `get pods` does not say which of several init containers fails; it fails all the same,
        # so it outranks pods that only wait (the caller weighs it against known stages)
        what = (
            f"{pod.name} is in {pod.status}: one of its init containers ({', '.join(inits)}) fails"
        )
        fix = (
            f"`kubectl describe pod {pod.name} -n gpu-operator` names the init container that "
            "fails and its exit code; read that container's log (`kubectl logs POD -n "
            "gpu-operator -c CONTAINER`)"
        )
        return _Held(_STAGES[inits[0]][0], "", what, "", fix, True, unknown=True)
    if stage is not None and stage in _STAGES:
        rank, (checks, fix) = _STAGES[stage]
        if stage == "toolkit-validation" and not pod.name.startswith("nvidia-operator-validator"):
            rank, (checks, fix) = 2, _TOOLKIT_WAIT
        workload = next((w for p, w in _WORKLOAD.items() if pod.name.startswith(p + "-")), None)
        what = f"{pod.name} is held in its init container {stage} ({how})"
        return _Held(rank, stage, what, workload or checks, fix, failing, unstarted)
    if pod.status in _FAILING:
        for prefix, rank, what, fix in _MAIN:
            if pod.name.startswith(prefix + "-"):
                return _Held(rank, "", f"{pod.name} is in {pod.status}: {what}", "", fix, True)
    return None


def check_gpu_operator_stage(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    pods = report.stack_pods if report is not None else ()
    errors = report.errors if report is not None else ()
    if not pods:  # a live host, or a paste without the operator's pods: nothing to say
        return []
    # a `describe pod` reading of a pod says more than its `get pods` row
    described = {p.name for p in pods if p.init_failed is not None}
    held = [
        (h, p)
        for p in pods
        if (p.init_failed is not None or p.name not in described) and (h := _held(p)) is not None
    ]
    if not held:
        if all(p.status in _FINE for p in pods if p.status):
            return [
                finding(
                    CODE,
                    OK,
                    "the NVIDIA GPU stack's pods listed are all Running or Completed",
                    evidence=[("pods", len(pods))],
                )
            ]
        return [finding(CODE, NA, "no NVIDIA GPU stack pod is held in a stage the check knows")]
    held.sort(key=lambda item: (item[0].rank, not item[0].failing))
    known = [item for item in held if not item[0].unknown]
    # a pod failing in an unnamed init container comes after every known stage that fails (that
    # one names the stage) but before pods that only wait (they wait on it)
    if known and (known[0][0].failing or len(known) == len(held)):
        held = known + [item for item in held if item[0].unknown]
    else:
        held = [item for item in held if item[0].unknown] + known
    first, pod = held[0]
    sandbox = next((e for e in errors if e.code in _SANDBOX), None)
    if sandbox is not None and first.unstarted and not first.failing:
        return [
            finding(
                CODE,
                WARN,
                f"the NVIDIA GPU stack's pod {pod.name} has not started its first init container",
                detail=f"{first.what}; the report also shows that a pod's sandbox could not be "
                f"created (line {sandbox.line}: {sandbox.code}), so no init container ran: the "
                "pod waits on the container runtime, not on the stage",
                fix=f"fix the sandbox error first (the finding of line {sandbox.line}); the "
                "operator's stages then run in order",
                evidence=[("pod", pod.name), ("status", pod.status or pod.init_reason)],
            )
        ]
    others = [p.name for _, p in held[1:]]
    detail = f"{first.what}: that stage {first.checks}" if first.checks else first.what
    if others:
        detail += (
            "; the operator's stages run in order (driver, container toolkit, CUDA workload, "
            f"device plugin), so the other pods held ({', '.join(others[:6])}) wait on it"
        )
    cause = _own_cause(first.rank, errors)
    if cause is not None:
        detail += (
            f"; the report's line {cause.line} ({cause.code}) is that component's own and names "
            "why: its finding carries the verdict and its fix applies"
        )
    title = (
        f"the NVIDIA GPU stack is held at {pod.name}, init container {first.stage}"
        if first.stage
        else f"the NVIDIA GPU stack is held at {pod.name} ({pod.status})"
    )
    return [
        finding(
            CODE,
            INFO if cause is not None else ERROR if first.failing else WARN,
            title,
            detail=detail,
            fix=first.fix,
            evidence=[("pod", pod.name), ("status", pod.status or pod.init_reason)],
        )
    ]


def _own_cause(rank: int, errors: Sequence[ReportError]) -> ReportError | None:
    """The first known line of the report that the held stage's own component prints and that
    names a cause (an error or a warning, not a symptom such as a pod's CrashLoopBackOff row)."""
    prefixes, layers = _OWN_LINES.get(rank, ((), frozenset()))
    if not errors or not (prefixes or layers):
        return None
    from gpudoctor.matrix.signatures import load_signatures  # lazy: known lines only

    by_code = load_signatures().by_code
    for error in errors:
        known = by_code.get(error.code)
        if known is None or known.symptom or known.severity not in ("error", "warn"):
            continue
        if error.code.startswith(prefixes) or known.layer in layers:
            return error
    return None


CHECKS = (check_gpu_operator_stage,)
