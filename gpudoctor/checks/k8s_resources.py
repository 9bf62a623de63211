"""A Kubernetes node advertises fewer GPUs than it has: the device plugin marked some unhealthy.

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
from gpudoctor.findings import NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "k8s-gpu-unhealthy"


def check_k8s_gpu_unhealthy(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    capacity = facts.platform.k8s_gpu_capacity
    allocatable = facts.platform.k8s_gpu_allocatable
    ev = [("capacity", capacity), ("allocatable", allocatable)]
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


CHECKS = (check_k8s_gpu_unhealthy,)
