"""Kubernetes GPU resources as the scheduler and the API print them: any GPU extended resource
the scheduler finds no room for (nvidia.com/gpu, its time-sliced .shared name, a vGPU
scheduler's volcano.sh/vgpu-number) is named with the resource it states; a MIG profile keeps
its own signature."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "resource"),
    [
        (
            "  Warning  FailedScheduling  36m   volcano  0/3 nodes are unavailable: 1 no enough "
            "gpu cards on node node-1, 2 Insufficient volcano.sh/vgpu-number.",
            "volcano.sh/vgpu-number",
        ),
        (
            "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.shared. preemption: 0/4 "
            "nodes are available: 4 No preemption victims found for incoming pod.",
            "nvidia.com/gpu.shared",
        ),
        (
            "Warning  FailedScheduling  26m (x150 over 12h)  default-scheduler  0/1 nodes are "
            "available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available",
            "nvidia.com/gpu",
        ),
        # inline code in prose: the resource ends at the backtick
        ("GPU pods stay `Pending` with `Insufficient nvidia.com/gpu`.", "nvidia.com/gpu"),
    ],
)
def test_an_insufficient_gpu_resource_is_named_with_its_name(
    read: Read, matrix: Matrix, line: str, resource: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "k8s-insufficient-gpu")
    assert f"no node advertises a free {resource}:" in found.detail


@pytest.mark.parametrize(
    "line",
    [
        # a MIG profile: its own signature
        "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.5gb.",
        # not a GPU resource
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.",
        "0/2 nodes are available: 2 Insufficient example.com/fpga.",
    ],
)
def test_other_resources_are_not_the_gpu_line(read: Read, matrix: Matrix, line: str) -> None:
    text = "$ kubectl describe pod gpu-pod\n" + line + "\n"
    assert error_lines(findings_of(read, matrix, text), "k8s-insufficient-gpu") == []


NODE_YAML = """\
$ kubectl get node gpu01 -o yaml
status:
  allocatable:
    cpu: "48"
    memory: 263412492Ki
    nvidia.com/gpu: "0"
    pods: "110"
  capacity:
    cpu: "48"
    memory: 263514892Ki
    nvidia.com/gpu: "16"
    pods: "110"
"""
NODE_JSON = """\
    "status": {
        "allocatable": {
            "cpu": "8",
            "nvidia.com/gpu": "2",
            "pods": "110"
        },
        "capacity": {
            "cpu": "8",
            "nvidia.com/gpu": "4",
            "pods": "110"
        },
"""
POD = """\
$ kubectl describe pod cuda-vector-add
Status:       Pending
Containers:
  cuda-vector-add:
    Image:      k8s.gcr.io/cuda-vector-add:v0.1
    Limits:
      nvidia.com/gpu:  2
    Requests:
      nvidia.com/gpu:  2
"""


def test_node_yaml_and_json_resources_are_read(read: Read, matrix: Matrix) -> None:
    for text, counts in ((NODE_YAML, (16, 0)), (NODE_JSON, (4, 2))):
        facts = read(text)
        platform = facts.platform
        assert (platform.k8s_gpu_capacity, platform.k8s_gpu_allocatable) == counts
        (unhealthy,) = [f for f in findings_of(read, matrix, text) if f.code == "k8s-gpu-unhealthy"]
        assert unhealthy.severity.value == "warn"


def test_a_pods_limits_are_what_it_asks_not_what_the_node_has(read: Read) -> None:
    facts = read(POD)
    assert (facts.platform.k8s_gpu_capacity, facts.platform.k8s_gpu_allocatable) == (None, None)
    assert facts.platform.kubernetes is True
    assert facts.report is not None
    assert "a pod asks for nvidia.com/gpu: 2" in facts.report.notes
    # a node and a pod in one paste: the pod's limits do not become the node's allocatable
    both = read(NODE_YAML.replace('"0"', '"16"') + POD)
    assert (both.platform.k8s_gpu_capacity, both.platform.k8s_gpu_allocatable) == (16, 16)


def test_a_failed_allocate_call_of_the_plugin_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        "Message:          Pod was rejected: Allocate failed due to rpc error: code = Unavailable "
        "desc = error reading from server: EOF, which is unexpected\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "device-plugin-allocate-rpc-failed")
    assert "Unavailable: error reading from server: EOF" in found.detail


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the kubelet's own count, not the plugin's RPC
        (
            "  Warning  UnexpectedAdmissionError  10s   kubelet  Allocate failed due to requested "
            "number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which "
            "is unexpected",
            "kubelet-device-allocate",
        ),
        # the MPS / time-slicing refusal keeps its own, more specific entry
        (
            "Allocate failed due to rpc error: code = Unknown desc = request for 'nvidia.com/gpu: "
            "2' too large: maximum request size for shared resources is 1, which is unexpected",
            "k8s-shared-gpu-request-too-large",
        ),
    ],
)
def test_other_allocate_failures_keep_their_entries(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    findings = findings_of(read, matrix, line + "\n")
    assert error_lines(findings, "device-plugin-allocate-rpc-failed") == []
    assert len(error_lines(findings, code)) == 1


WIDE = """\
$ kubectl get nodes -o wide
NAME       STATUS   ROLES           AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
gpu-1      Ready    <none>          12d   v1.29.4   10.0.0.12     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.12
"""  # noqa: E501


def test_nodes_wide_gives_kernel_and_runtime(read: Read) -> None:
    facts = read(WIDE)
    assert facts.kernel.release == "5.15.0-105-generic"
    assert facts.container_runtime.cri_engine == "containerd"
    assert facts.platform.kubernetes is True


def test_nodes_that_differ_or_a_runtime_url_elsewhere_give_no_kernel(read: Read) -> None:
    control = "cpu-1      Ready    control-plane   12d   v1.29.4   10.0.0.2      <none>        "
    two = WIDE + control + "Rocky Linux 9.3      5.14.0-362.8.1.el9_3.x86_64   cri-o://1.29.1\n"
    facts = read(two)
    assert (facts.kernel.release, facts.container_runtime.cri_engine) == (None, None)
    # no -o wide header: a Container ID line is not a node row
    pod = (
        "kubectl describe pod x\n    Container ID:   containerd://5f0c3e1a9b\n    Kernel 6.8.0-1\n"
    )
    assert read(pod).container_runtime.cri_engine is None


def test_the_driver_containers_missing_rhel_repositories_are_named(
    read: Read, matrix: Matrix
) -> None:
    log = (
        "+ dnf install -q -y elfutils-libelf.x86_64 elfutils-libelf-devel.x86_64\n"
        "Error: Unable to find a match: elfutils-libelf-devel.x86_64\n"
    )
    (found,) = error_lines(findings_of(read, matrix, log), "driver-container-no-rhel-repos")
    assert "entitlement" in found.detail
    # near miss: the package installed; another package missing is not this line
    fine = (
        "+ dnf install -q -y elfutils-libelf.x86_64 elfutils-libelf-devel.x86_64\n"
        "Installed:\n  elfutils-libelf-devel-0.182-3.el8.x86_64\n"
        "Error: Unable to find a match: htop\nKubernetes v1.27 on RHEL 8.6\n"
    )
    assert error_lines(findings_of(read, matrix, fine), "driver-container-no-rhel-repos") == []


@pytest.mark.parametrize(
    ("text", "distribution"),
    [
        ("pods stay Pending on our 2 g5 nodes since yesterday", None),
        ("the nvidia-device-plugin-daemonset pod is in CrashLoopBackOff", None),
        ("Bottlerocket GPU nodes on EKS 1.29 with the NVIDIA driver 535", "eks"),
        ("our OpenShift 4.14 cluster with the GPU Operator 23.9", "openshift"),
    ],
)
def test_kubernetes_prose_is_read(read: Read, text: str, distribution: str | None) -> None:
    facts = read(text + "\n")
    assert facts.platform.kubernetes is True
    assert facts.platform.k8s_distribution == distribution


def test_words_near_kubernetes_are_not_it(read: Read) -> None:
    text = (
        "podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi\n"
        "2 updates pending; Driver Version: 550.54.15\n"
        "Restarting the speaks service\n"
    )
    facts = read(text)
    assert facts.platform.kubernetes is None
    assert facts.platform.k8s_distribution is None


@pytest.mark.parametrize(
    ("line", "taint"),
    [
        (
            "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: true}, 2 "
            "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.",
            "{nvidia.com/gpu: true}",
        ),
        (
            "0/2 nodes are available: 2 node(s) had taint {sku: gpu}, that the pod didn't "
            "tolerate.",
            "{sku: gpu}",
        ),
    ],
)
def test_an_untolerated_gpu_taint_is_named(
    read: Read, matrix: Matrix, line: str, taint: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "k8s-gpu-taint-not-tolerated")
    assert f"the GPU nodes carry the taint {taint}" in found.detail


def test_other_taints_are_not_the_gpu_taint(read: Read, matrix: Matrix) -> None:
    text = (
        "kubectl describe pod gpu-pod\n"
        "0/3 nodes are available: 3 node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }.\n"
        "0/1 nodes are available: 1 node(s) had untolerated taint "
        "{node.kubernetes.io/not-ready: }.\n"
    )
    assert error_lines(findings_of(read, matrix, text), "k8s-gpu-taint-not-tolerated") == []


def test_the_operators_driver_validation_retrying_is_a_warning(read: Read, matrix: Matrix) -> None:
    log = (
        'time="2025-09-09T10:00:00Z" level=info msg="Attempting to validate a driver container '
        'installation"\n'
        'time="2025-09-09T10:00:00Z" level=warning msg="failed to validate the driver, retrying '
        'after 5 seconds\\n"\n'
    )
    (found,) = error_lines(findings_of(read, matrix, log), "gpu-operator-driver-not-validated")
    assert found.severity.value == "warn"
    # near miss: the validator found the host's driver
    ok = (
        'time="2025-09-09T10:00:00Z" level=info msg="Detected a pre-installed driver on the host"\n'
        "GPU Operator v25.3.1 on Kubernetes 1.31\n"
    )
    assert error_lines(findings_of(read, matrix, ok), "gpu-operator-driver-not-validated") == []


def test_an_nvidia_pod_in_a_failing_state_is_a_known_line(read: Read) -> None:
    # `kubectl get pods -A`: the driver pod crash-looping is named, with its log as the fix
    listing = (
        "NAMESPACE      NAME                           READY   STATUS             RESTARTS   AGE\n"
        "gpu-operator   gpu-operator-7ff85f9c4f-fw7hb  1/1     Running            0          62m\n"
        "gpu-operator   nvidia-driver-daemonset-6tmcb  0/1     CrashLoopBackOff   7          17m\n"
        "gpu-operator   nvidia-cuda-validator-4br5g    0/1     Init:0/1           0          17m\n"
        "default        my-app-5d4                     0/1     CrashLoopBackOff   4          1m\n"
    )
    facts = read(listing)
    assert facts.report is not None
    # the NVIDIA stack's pod by its own entry (its fix names its log), a workload's by
    # the generic one
    assert [(e.code, e.line) for e in facts.report.errors] == [
        ("nvidia-pod-failing", 3),
        ("k8s-pod-failing", 5),
    ]
    # near misses: a pod waiting on another (Init:0/1), one running, one that completed
    calm = "\n".join(line for line in listing.splitlines() if "CrashLoop" not in line) + "\n"
    assert read(calm).report.errors == ()  # type: ignore[union-attr]


POD_ASKS_NONE = """\
      resources:
        limits:
          nvidia.com/gpu: "0"
        requests:
          nvidia.com/gpu: "0"
"""
NODE_HAS_NONE = """\
Capacity:
  cpu:                16
  nvidia.com/gpu:     0
Allocatable:
  cpu:                16
  nvidia.com/gpu:     0
"""


def test_a_pods_request_of_zero_is_not_a_node_without_gpus(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, POD_ASKS_NONE)
    (line,) = error_lines(findings, "k8s-node-zero-gpus")[:1]
    assert line.severity.value == "info"
    assert "pod's Limits/Requests" in line.detail
    assert "NVIDIA_VISIBLE_DEVICES" in line.detail
    assert not [f for f in findings if f.severity.value in ("warn", "error")]


def test_near_miss_a_nodes_zero_allocatable_stays_an_error(read: Read, matrix: Matrix) -> None:
    lines = error_lines(findings_of(read, matrix, NODE_HAS_NONE), "k8s-node-zero-gpus")
    assert lines
    assert {f.severity.value for f in lines} == {"error"}
    # a node's zero beside a pod asking for none: the node's line is still the node's
    both = error_lines(
        findings_of(read, matrix, NODE_HAS_NONE + POD_ASKS_NONE), "k8s-node-zero-gpus"
    )
    assert "error" in {f.severity.value for f in both}


GPU_NODE_WITHOUT_GPU = """\
Name:               gpu-node-1
Labels:             beta.kubernetes.io/arch=amd64
                    nvidia.com/gpu.present=true
Capacity:
  cpu:                16
  ephemeral-storage:  102350Mi
  memory:             65843764Ki
  pods:               110
Allocatable:
  cpu:                16
  ephemeral-storage:  94327854679
  memory:             65741364Ki
  pods:               110
"""


def _unhealthy(read: Read, matrix: Matrix, text: str) -> str:
    (found,) = [f for f in findings_of(read, matrix, text) if f.code == "k8s-gpu-unhealthy"]
    return found.severity.value


def test_a_gpu_node_that_lists_no_gpu_resource_is_told_the_plugin(
    read: Read, matrix: Matrix
) -> None:
    facts = read(GPU_NODE_WITHOUT_GPU)
    assert (facts.platform.k8s_gpu_capacity, facts.platform.k8s_gpu_allocatable) == (0, 0)
    assert _unhealthy(read, matrix, GPU_NODE_WITHOUT_GPU) == "warn"
    nfd = GPU_NODE_WITHOUT_GPU.replace(
        "nvidia.com/gpu.present=true", "feature.node.kubernetes.io/pci-10de.present=true"
    )
    assert _unhealthy(read, matrix, nfd) == "warn"


def test_near_misses_of_a_node_without_gpu_resources(read: Read, matrix: Matrix) -> None:
    # no sign of a GPU on the node: a CPU node, nothing to say
    cpu_node = GPU_NODE_WITHOUT_GPU.replace("nvidia.com/gpu.present=true", "role=db")
    cpu_node += "Kernel Version: 5.15.0-105-generic\n"
    assert _unhealthy(read, matrix, cpu_node) == "n/a"
    # the node lists nvidia.com/gpu: read as the count, not as absent
    listed = GPU_NODE_WITHOUT_GPU.replace("  pods:", "  nvidia.com/gpu:     2\n  pods:")
    assert read(listed).platform.k8s_gpu_capacity == 2
    assert _unhealthy(read, matrix, listed) == "ok"


@pytest.mark.parametrize(
    "line",
    [
        "  Warning  FailedScheduling  3m  default-scheduler  0/4 nodes are available: 4 node(s) "
        "didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 "
        "Preemption is not helpful for scheduling.",
        "0/2 nodes are available: 2 node(s) didn't match node selector.",
    ],
)
def test_an_unmatched_node_selector_is_named(read: Read, matrix: Matrix, line: str) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "k8s-node-selector-unmatched")
    assert "nodeSelector" in found.detail


def test_near_misses_of_the_node_selector_line(read: Read, matrix: Matrix) -> None:
    # the same event that also finds no free GPU is the GPU's line
    both = (
        "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's "
        "node affinity/selector.\n"
    )
    findings = findings_of(read, matrix, both)
    assert error_lines(findings, "k8s-insufficient-gpu")
    assert not error_lines(findings, "k8s-node-selector-unmatched")
    # a pod spec's nodeSelector is no scheduling failure
    spec = (
        'spec:\n  nodeSelector:\n    nvidia.com/gpu.present: "true"\n'
        + "Driver Version: 550.54.15\n"
    )
    assert not error_lines(findings_of(read, matrix, spec), "k8s-node-selector-unmatched")


def test_a_missing_nvidia_runtime_class_is_named(read: Read, matrix: Matrix) -> None:
    line = (
        'Error from server (Forbidden): error when creating "gpu-pod.yaml": pods "gpu-pod" is '
        'forbidden: pod rejected: RuntimeClass "nvidia" not found\n'
    )
    (found,) = error_lines(findings_of(read, matrix, line), "k8s-runtime-class-missing")
    assert "handler: nvidia" in found.fix
    assert "name: nvidia" in found.fix
    # near miss: another runtime class (gVisor, Kata) is none of the GPU stack's business
    other = line.replace('RuntimeClass "nvidia"', 'RuntimeClass "gvisor"')
    other = "Driver Version: 550.54.15\n" + other
    assert not error_lines(findings_of(read, matrix, other), "k8s-runtime-class-missing")
