"""A Kubernetes node's containerd must serve CRI: its `disabled_plugins` must not name the CRI
plugin.

containerd as Docker's containerd.io package installs it ships `/etc/containerd/config.toml`
with `disabled_plugins = ["cri"]`: Docker does not use containerd's CRI plugin, so the line is
harmless on a Docker host, but the kubelet then finds no CRI service on containerd's socket
("unknown service runtime.v1.RuntimeService") and the node never runs a pod. Source: the
Kubernetes documentation, "Container Runtimes", containerd: "If you installed containerd from a
package (for example, RPM or .deb), you may find that the CRI integration plugin is disabled by
default. You need CRI support enabled to use containerd with Kubernetes. Make sure that `cri` is
not included in the `disabled_plugins` list within /etc/containerd/config.toml".

K3s, RKE2 and MicroK8s run a containerd of their own with its own generated config, so the
system containerd's file does not concern them; no alarm there, and none without Kubernetes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.findings import ERROR, NA, OK, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "containerd-cri-disabled"
# distributions whose kubelet talks to a containerd they start with their own config
OWN_CONTAINERD = ("k3s", "rke2", "microk8s")
FIX = (
    'remove "cri" (io.containerd.grpc.v1.cri) from disabled_plugins in '
    "/etc/containerd/config.toml, then `sudo systemctl restart containerd` and restart the "
    "kubelet (`sudo systemctl restart kubelet`)"
)


def check_containerd_cri(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    disabled = facts.container_runtime.cri_plugin_disabled
    kubernetes = facts.platform.kubernetes
    distribution = facts.platform.k8s_distribution
    ev = [
        ("cri_plugin_disabled", disabled),
        ("kubernetes", kubernetes),
        ("k8s_distribution", distribution),
    ]
    if disabled is None:
        return [finding(CODE, NA, "no containerd disabled_plugins line read", evidence=ev)]
    if not disabled:
        return [
            finding(CODE, OK, "containerd's disabled_plugins leaves its CRI plugin on", evidence=ev)
        ]
    if not kubernetes:
        return [
            finding(
                CODE,
                OK,
                "containerd's CRI plugin is disabled (disabled_plugins): harmless for Docker, "
                "which does not use it; a Kubernetes node could not run on this containerd",
                evidence=ev,
            )
        ]
    if distribution in OWN_CONTAINERD:
        return [
            finding(
                CODE,
                OK,
                f"the system containerd's CRI plugin is disabled, but {distribution} runs a "
                "containerd of its own with its own config",
                evidence=ev,
            )
        ]
    return [
        finding(
            CODE,
            ERROR,
            "containerd's CRI plugin is disabled (disabled_plugins) on a Kubernetes node: the "
            "kubelet finds no CRI service on containerd's socket",
            detail="the containerd.io package's config.toml disables the CRI plugin for Docker; "
            "the kubelet then fails to start with 'unknown service runtime.v1.RuntimeService' "
            "and the node runs no pod, GPU pods included (Kubernetes docs, Container Runtimes: "
            "`cri` must not be in disabled_plugins)",
            fix=FIX,
            evidence=ev,
        )
    ]


CHECKS = (check_containerd_cri,)
