"""Kubernetes pods get the NVIDIA runtime: the node's containerd or CRI-O makes `nvidia` its
default runtime, or the pods ask for it by RuntimeClass.

Source: the NVIDIA device plugin's README (github.com/NVIDIA/k8s-device-plugin): its
prerequisites list "nvidia-container-runtime configured as the default low-level runtime"; its
Quick Start says the `--set-as-default` argument must be given to `nvidia-ctk runtime configure`
for `nvidia` to be the default, and "If this is not done, a RuntimeClass needs to be defined"
(`handler: nvidia`), which pods then name with `runtimeClassName: nvidia`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.runtime import configure_runtime, nvidia_runtimes
from gpudoctor.cri_config import CRIO
from gpudoctor.findings import NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "k8s-nvidia-runtime"
RUNTIME_CLASS = (
    "a RuntimeClass named nvidia (handler: nvidia) and runtimeClassName: nvidia in each GPU "
    "pod's spec"
)


def default_fix(facts: HostFacts, engine: str) -> str:
    """nvidia-ctk's own command for the engine (k8s-device-plugin README), then a restart."""
    if engine == CRIO:
        options = " --set-as-default --config=/etc/crio/crio.conf.d/99-nvidia.conf"
        return configure_runtime(facts, "crio", options)
    return configure_runtime(facts, "containerd", " --set-as-default")


def docker_default_fix(facts: HostFacts) -> str:
    """Make nvidia Docker's default runtime: what a node running its pods through Docker
    (dockershim, cri-dockerd) needs, since every pod gets Docker's default."""
    return "make nvidia Docker's default runtime: " + configure_runtime(
        facts, "docker", " --set-as-default"
    )


def check_k8s_nvidia_runtime(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    r = facts.container_runtime
    ev = [
        ("cri_engine", r.cri_engine),
        ("cri_runtimes", r.cri_runtimes),
        ("cri_default_runtime", r.cri_default_runtime),
        ("runtime_class_nvidia", r.runtime_class_nvidia),
    ]
    if r.cri_engine == "docker":
        return _docker_engine(facts, ev)
    if r.cri_engine is None:
        return [finding(CODE, NA, "no containerd or CRI-O config read")]
    nvidia = [n for n in r.cri_runtimes if n.startswith("nvidia")]
    if not nvidia:
        return [finding(CODE, NA, f"{r.cri_engine} defines no NVIDIA runtime", evidence=ev)]
    default = r.cri_default_runtime
    if default is not None and default.startswith("nvidia"):
        return [finding(CODE, OK, f"{r.cri_engine}'s default runtime is {default}", evidence=ev)]
    if r.runtime_class_nvidia:
        return [
            finding(
                CODE,
                OK,
                f"pods ask for the NVIDIA runtime with runtimeClassName "
                f"({r.cri_engine}'s default is {default or 'its own'})",
                evidence=ev,
            )
        ]
    shown = f"'{default}'" if default else "not set (runc or crun)"
    return [
        finding(
            CODE,
            WARN,
            f"{r.cri_engine} defines the {nvidia[0]} runtime but its default runtime is {shown}: "
            "pods without runtimeClassName: nvidia get no GPU",
            detail="Kubernetes starts every pod that names no runtimeClassName with the "
            "engine's default runtime. Without the NVIDIA runtime the device plugin's own pod "
            "loads no NVML (it crash-loops or reports no devices), the node advertises no "
            "nvidia.com/gpu, and GPU pods stay Pending or see no GPU. The device plugin README "
            "asks for the NVIDIA runtime as the default, or a RuntimeClass.",
            fix=f"{default_fix(facts, r.cri_engine)}; or {RUNTIME_CLASS}",
            evidence=ev,
        )
    ]


def _docker_engine(facts: HostFacts, shown: Sequence[tuple[str, object]]) -> list[Finding]:
    """The kubelet runs its pods through Docker (`docker://` in `kubectl get nodes -o wide` or
    the node's System Info: dockershim before Kubernetes 1.24, cri-dockerd after): pods get
    Docker's default runtime, so nvidia must be it (the device plugin's own words: "did you set
    the docker default runtime to `nvidia`?"; its README, Docker: "default-runtime": "nvidia"
    in /etc/docker/daemon.json)."""
    r = facts.container_runtime
    ev = [*shown, ("default_runtime", r.default_runtime), ("daemon_json", r.daemon_json_runtimes)]
    nvidia = sorted(nvidia_runtimes(facts))
    default = r.default_runtime
    if not nvidia or default is None:
        return [finding(CODE, NA, "Docker's runtimes or default runtime not shown", evidence=ev)]
    if default.startswith("nvidia"):
        return [finding(CODE, OK, f"Docker's default runtime is {default}", evidence=ev)]
    return [
        finding(
            CODE,
            WARN,
            f"the node runs pods through Docker, which has the {nvidia[0]} runtime but whose "
            f"default runtime is {default}: pods get no GPU",
            detail="Kubernetes on Docker starts every pod with Docker's default runtime; "
            "without the NVIDIA runtime the device plugin's own pod loads no NVML (it "
            "crash-loops or reports no devices), the node advertises no nvidia.com/gpu, and "
            "GPU pods stay Pending or see no GPU",
            fix=docker_default_fix(facts)
            + ' (it writes "default-runtime": "nvidia" into /etc/docker/daemon.json)',
            evidence=ev,
        )
    ]


CHECKS = (check_k8s_nvidia_runtime,)
