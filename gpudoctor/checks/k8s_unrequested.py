"""A pod that means to use a GPU but asks for none (k8s-gpu-unrequested).

The NVIDIA device plugin gives GPUs only to containers that name `nvidia.com/gpu` in their
limits (k8s-device-plugin README, "Running GPU Jobs"); a pod that asks for none reaches a GPU
only through NVIDIA_VISIBLE_DEVICES (set in its spec or by a CUDA image), which the NVIDIA
runtime honours for unprivileged containers only while the node lets it
(accept-nvidia-visible-devices-envvar-when-unprivileged, true by default; the device plugin's
volume-mounts and CDI list strategies, and Bottlerocket from 1.19, give unprivileged pods only
the GPUs the plugin allocated). People leave the limit out to share one GPU among pods; the
device plugin's own way to share is time-slicing or MPS (its config's sharing section), under
which each pod asks for `nvidia.com/gpu: 1`.

The check reads a pasted pod that asks for no GPU (its Limits without one, or prose that says
so) beside what says the pod means to use one: the report says the pods share a GPU, or the pod
sets NVIDIA_VISIBLE_DEVICES. A pod whose "no driver" line is in the report is left to that
line, which carries the same fix (checks/k8s_pod.py); a pod asking for GPUs, or a paste that
does not say, gets no finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import finding
from gpudoctor.checks.k8s_pod import NO_DRIVER_CODES
from gpudoctor.findings import WARN

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.findings import Finding
    from gpudoctor.matrix.model import Matrix

CODE = "k8s-gpu-unrequested"
# NVIDIA_VISIBLE_DEVICES values that ask the runtime for no GPU
_NO_GPU = frozenset({"", "void", "none"})


def check_k8s_gpu_unrequested(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    p, report = facts.platform, facts.report
    if report is None or not p.kubernetes or p.k8s_gpu_requested != 0:
        return []
    if p.k8s_exec_gpus:  # nvidia-smi in the pod lists GPUs: k8s-pod-extra-gpus judges that
        return []
    if any(e.code in NO_DRIVER_CODES for e in report.errors):
        return []  # the pod's "no driver" line says it, with this fix (checks/k8s_pod.py)
    why = []
    if p.k8s_gpu_shared_said:
        why.append("the report says the pods share one GPU")
    visible = p.nvidia_visible_devices
    # the NVIDIA stack's own pods set it and ask for no GPU by design: only a paste without them
    if visible is not None and visible.lower() not in _NO_GPU and not report.stack_pods:
        why.append(f"the pod sets NVIDIA_VISIBLE_DEVICES={visible}")
    if not why:
        return []
    return [
        finding(
            CODE,
            WARN,
            "a pod that means to use a GPU asks for no nvidia.com/gpu",
            detail=f"{' and '.join(why)}, yet the pod's limits name no nvidia.com/gpu: the device "
            "plugin allocates it no GPU, and it reaches one only through "
            "NVIDIA_VISIBLE_DEVICES, which the NVIDIA runtime honours for an unprivileged pod "
            "only while the node allows it; nodes that give unprivileged pods only the GPUs the "
            "plugin allocated (the plugin's volume-mounts or CDI list strategy, "
            "accept-nvidia-visible-devices-envvar-when-unprivileged = false, Bottlerocket from "
            "1.19) show such a pod no GPU, and where it does see one the scheduler does not "
            "count it",
            fix="ask for the GPU in each container that uses it: `resources: limits: "
            "nvidia.com/gpu: 1`; to let several pods share one GPU, turn on the device plugin's "
            "time-slicing or MPS (its config's `sharing.timeSlicing.resources: [{name: "
            "nvidia.com/gpu, replicas: N}]`) so that the node advertises N of them, and ask "
            "for one each",
            evidence=[
                ("requested", p.k8s_gpu_requested),
                ("shared_said", p.k8s_gpu_shared_said),
                ("nvidia_visible_devices", visible),
            ],
        )
    ]


CHECKS = (check_k8s_gpu_unrequested,)
