"""The Kubernetes distributions and managed services GPUs run on: the device plugin's inotify
failure, minikube's --gpus refusals, K3s's note that it found the NVIDIA runtime, and GKE's and
AKS's GPU node labels on a node that advertises no nvidia.com/gpu. Each line is named by its
entry with its values in the cause, a near miss is not, and the healthy output raises nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, named_lines, warn_or_error

Read = Callable[[str], HostFacts]

_E = "E0312 08:14:02.114901       1 main.go:132] "
_I = "I0312 08:14:02.114830       1 main.go:178] "


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (
            _E + "failed to create FS watcher for /var/lib/kubelet/device-plugins/: too many "
            "open files",
            "too many open files",
        ),
        ("2024/01/09 11:02:17 failed to create FS watcher: too many open files", "too many open"),
        (
            _E + "failed to create FS watcher for /var/lib/kubelet/device-plugins/: no space "
            "left on device",
            "no space left on device",
        ),
    ],
)
def test_the_plugins_inotify_failure_is_named_with_its_errno(
    read: Read, matrix: Matrix, line: str, why: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "device-plugin-fs-watcher-limit")
    assert found.severity is Severity.ERROR
    assert f"('{why}" in found.detail
    assert "fs.inotify.max_user_instances" in found.fix
    assert "max_user_watches" in found.fix


def test_near_misses_of_the_inotify_failure(read: Read, matrix: Matrix) -> None:
    # the plugin's healthy start-up: the watcher is made, the plugin registers
    start = (
        _I
        + "Starting FS watcher for /var/lib/kubelet/device-plugins\n"
        + _I
        + "Starting OS watcher.\n"
        + "I0312 08:14:02.513209       1 server.go:125] Registered device plugin for "
        "'nvidia.com/gpu' with Kubelet\n"
    )
    findings = findings_of(read, matrix, start)
    assert not error_lines(findings, "device-plugin-fs-watcher-limit")
    assert warn_or_error(findings) == []
    # another errno is no inotify limit
    other = (
        _E + "failed to create FS watcher for /var/lib/kubelet/device-plugins/: permission denied\n"
    )
    assert not named_lines(read, matrix, other, "device-plugin-fs-watcher-limit")


@pytest.mark.parametrize(
    "line",
    [
        "❌  Exiting due to MK_USAGE: The gpus flag can only be used with the docker driver and "
        "docker container-runtime",
        "X Exiting due to MK_USAGE: The gpus flag can only be used with the docker driver and "
        "docker container-runtime",
    ],
)
def test_minikubes_gpus_refusal_is_named(read: Read, matrix: Matrix, line: str) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "minikube-gpus-driver")
    assert found.severity is Severity.ERROR
    assert "--driver=docker --container-runtime=docker --gpus=all" in found.fix


def test_minikubes_gpus_value_refusal_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        "X Exiting due to MK_USAGE: The gpus flag must be passed a value of "
        '"nvidia", "amd" or "all"\n'
    )
    (found,) = named_lines(read, matrix, line, "minikube-gpus-value")
    assert "--gpus=all" in found.fix
    assert not named_lines(read, matrix, line, "minikube-gpus-driver")


def test_minikubes_healthy_gpu_start_raises_nothing(read: Read, matrix: Matrix) -> None:
    text = (
        "$ minikube start --driver docker --container-runtime docker --gpus all\n"
        "😄  minikube v1.34.0 on Ubuntu 22.04\n"
        "✨  Using the docker driver based on user configuration\n"
        "🐳  Preparing Kubernetes v1.31.0 on Docker 27.2.0 ...\n"
        "    ▪ Using image nvcr.io/nvidia/k8s-device-plugin:v0.16.2\n"
        "🌟  Enabled addons: storage-provisioner, nvidia-device-plugin, default-storageclass\n"
        '🏄  Done! kubectl is now configured to use "minikube" cluster\n'
    )
    findings = findings_of(read, matrix, text)
    assert not error_lines(findings, "minikube-gpus-driver")
    assert warn_or_error(findings) == []


def test_k3s_finding_the_nvidia_runtime_is_info(read: Read, matrix: Matrix) -> None:
    text = (
        'Mar 12 09:01:44 gpu01 k3s[1873]: time="2025-03-12T09:01:44Z" level=info msg="Found '
        'nvidia container runtime at /usr/bin/nvidia-container-runtime"\n'
        'Mar 12 09:01:44 gpu01 k3s[1873]: time="2025-03-12T09:01:44Z" level=info msg="Found '
        'nvidia-cdi container runtime at /usr/bin/nvidia-container-runtime.cdi"\n'
    )
    findings = findings_of(read, matrix, text)
    found = error_lines(findings, "k3s-nvidia-runtime-found")
    assert {f.severity for f in found} == {Severity.INFO}
    assert "runtimeClassName: nvidia`" in found[0].fix
    assert "/usr/bin/nvidia-container-runtime when" in found[0].detail
    cdi = text.splitlines()[1] + "\n"
    (line,) = named_lines(read, matrix, cdi, "k3s-nvidia-runtime-found")
    assert "--default-runtime=nvidia-cdi" in line.fix
    assert "/usr/bin/nvidia-container-runtime.cdi" in line.detail
    assert warn_or_error(findings) == []
    # K3s's other runtimes are no NVIDIA line
    crun = (
        'Mar 12 09:01:44 gpu01 k3s[1873]: level=info msg="Found crun container runtime at '
        '/usr/bin/crun"\n'
    )
    assert not named_lines(read, matrix, crun, "k3s-nvidia-runtime-found")


GKE_NODE = """\
$ kubectl get node gke-ml-gpu-pool-5d1e2f7a-x8kq -o yaml
apiVersion: v1
kind: Node
metadata:
  labels:
    cloud.google.com/gke-accelerator: nvidia-l4
    cloud.google.com/gke-nodepool: gpu-pool
    kubernetes.io/arch: amd64
  name: gke-ml-gpu-pool-5d1e2f7a-x8kq
status:
  allocatable:
    cpu: 7910m
    memory: 29155948Ki
    pods: "110"
  capacity:
    cpu: "8"
    memory: 32882796Ki
    pods: "110"
"""
AKS_NODE = """\
Name:               aks-gpunp-28993262-vmss000000
Labels:             agentpool=gpunp
                    kubernetes.azure.com/accelerator=nvidia
                    kubernetes.azure.com/agentpool=gpunp
Taints:             sku=gpu:NoSchedule
Capacity:
  cpu:                6
  memory:             115437568Ki
  pods:               110
Allocatable:
  cpu:                5840m
  memory:             105231360Ki
  pods:               110
"""


def _unhealthy(read: Read, matrix: Matrix, text: str) -> Finding:
    (found,) = [f for f in findings_of(read, matrix, text) if f.code == "k8s-gpu-unhealthy"]
    return found


def test_a_gke_gpu_node_without_gpus_is_told_the_driver(read: Read, matrix: Matrix) -> None:
    facts = read(GKE_NODE)
    assert facts.platform.k8s_distribution == "gke"
    assert (facts.platform.k8s_gpu_capacity, facts.platform.k8s_gpu_allocatable) == (0, 0)
    found = _unhealthy(read, matrix, GKE_NODE)
    assert found.severity is Severity.WARN
    assert "gpu-driver-version=default" in found.fix
    assert "nvidia-driver-installer" in found.fix
    assert "runtimeClassName" not in found.fix  # GKE runs no NVIDIA container runtime


def test_an_aks_gpu_node_without_gpus_is_told_the_plugin(read: Read, matrix: Matrix) -> None:
    assert read(AKS_NODE).platform.k8s_distribution == "aks"
    found = _unhealthy(read, matrix, AKS_NODE)
    assert found.severity is Severity.WARN
    assert "NVIDIA device plugin DaemonSet" in found.fix
    assert "--gpu-driver none" in found.fix


def test_near_misses_of_the_managed_gpu_labels(read: Read, matrix: Matrix) -> None:
    # the same nodes advertising their GPU: nothing to say
    gke = GKE_NODE.replace('    pods: "110"', '    nvidia.com/gpu: "1"\n    pods: "110"')
    assert _unhealthy(read, matrix, gke).severity is Severity.OK
    aks = AKS_NODE.replace("  pods:", "  nvidia.com/gpu:     1\n  pods:")
    assert _unhealthy(read, matrix, aks).severity is Severity.OK
    # a CPU node pool of the same cluster carries no accelerator label
    cpu = GKE_NODE.replace("    cloud.google.com/gke-accelerator: nvidia-l4\n", "")
    cpu = cpu.replace("gpu-pool", "default-pool").replace("ml-gpu", "ml-default")
    assert _unhealthy(read, matrix, cpu).severity is Severity.NA
    # a pod's nodeSelector on the label: no node's resources, nothing to judge
    pod = (
        "spec:\n  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-l4\n"
        "  containers:\n  - name: cuda\n    resources:\n      limits:\n"
        '        cpu: "2"\n        nvidia.com/gpu: 1\n'
    )
    assert _unhealthy(read, matrix, pod).severity is Severity.NA


_OPERATOR = '{"level":"info","ts":1709287201.02,"logger":"controllers.ClusterPolicy","msg":"'


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            "OpenShift DriverToolkit was requested but could not be enabled (dependencies "
            'missing)"}',
            "gpu-operator-dtk-unavailable",
        ),
        (
            'WARNING: DriverToolkit image tag missing. Version-specific fallback mode enabled.",'
            '"rhcosVersion":"414.92.202402130420-0"}',
            "gpu-operator-dtk-tag-missing",
        ),
        (
            "WARNINGs: RHCOS driver-toolkit image missing. Version-specific fallback mode "
            'enabled.","rhcosVersion":"414.92.202402130420-0"}',
            "gpu-operator-dtk-tag-missing",
        ),
    ],
)
def test_the_operators_driver_toolkit_fallbacks_are_warnings(
    read: Read, matrix: Matrix, message: str, code: str
) -> None:
    (found,) = named_lines(read, matrix, _OPERATOR + message + "\n", code)
    assert found.severity is Severity.WARN
    assert "entitlement" in found.detail


def test_near_misses_of_the_driver_toolkit_lines(read: Read, matrix: Matrix) -> None:
    healthy = (
        _OPERATOR + 'OpenShift Driver Toolkit requested","hasCompatibleNFD":true,'
        '"hasDriverToolkitImageStream":true}\n'
        + _OPERATOR
        + 'OpenShift Driver Toolkit","enabled":true}\n'
        + _OPERATOR
        + 'DriverToolkit","image":"quay.io/openshift-release-dev/ocp-v4.0-art-dev"}\n'
        + _OPERATOR
        + 'ClusterPolicy is ready."}\n'
    )
    findings = findings_of(read, matrix, healthy)
    assert not error_lines(findings, "gpu-operator-dtk-unavailable")
    assert not error_lines(findings, "gpu-operator-dtk-tag-missing")
    assert warn_or_error(findings) == []
