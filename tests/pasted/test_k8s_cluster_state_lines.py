"""Lines that show the cluster around the GPUs failing, pasted as Kubernetes, Helm and the GPU
Operator's driver container print them: nodes NotReady, tainted by a condition, cordoned; pods
evicted, refused by Pod Security Admission, left in ContainerCreating; taints no pod tolerates;
Helm's ownership refusal; a second driver container. Each is named by its own entry with the
line's values, and its near miss is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, named_lines

Read = Callable[[str], HostFacts]

NOT_READY_TAINT = (
    "  Warning  FailedScheduling  41s   default-scheduler  0/1 nodes are available: 1 node(s) "
    "had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/1 nodes are "
    "available: 1 Preemption is not helpful for scheduling.\n"
)
CONTROL_PLANE_TAINT = (
    "  Warning  FailedScheduling  18s   default-scheduler  0/1 nodes are available: 1 node(s) "
    "had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes "
    "are available: 1 Preemption is not helpful for scheduling.\n"
)
GPU_TAINT = "0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}.\n"
NODES = (
    "NAME            STATUS     ROLES           AGE   VERSION\n"
    "cp-1            Ready      control-plane   41d   v1.29.4\n"
    "gpu-worker-1    NotReady   <none>          41d   v1.29.4\n"
)
CONDITION = (
    "Conditions:\n"
    "  Type             Status  LastHeartbeatTime                 LastTransitionTime           "
    "     Reason                       Message\n"
    "  Ready            False   Mon, 06 May 2024 10:12:01 +0000   Mon, 06 May 2024 09:02:11 "
    "+0000   KubeletNotReady              container runtime network not ready: "
    "NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni "
    "plugin not initialized\n"
)
EVICTED = (
    "Status:           Failed\n"
    "Reason:           Evicted\n"
    "Message:          The node was low on resource: ephemeral-storage. Threshold quantity: "
    "10120387020, available: 9873512Ki. Container nvidia-driver-ctr was using 2871004Ki, "
    "request is 0, has larger consumption of ephemeral-storage.\n"
)
PSA = (
    "LAST SEEN   TYPE      REASON         OBJECT                              MESSAGE\n"
    "4m          Warning   FailedCreate   daemonset/nvidia-driver-daemonset   Error creating: "
    'pods "nvidia-driver-daemonset-" is forbidden: violates PodSecurity "restricted:latest": '
    'privileged (container "nvidia-driver-ctr" must not set securityContext.privileged=true)\n'
)
HELM = (
    "Error: INSTALLATION FAILED: rendered manifests contain a resource that already exists. "
    'Unable to continue with install: CustomResourceDefinition "nodefeaturerules.nfd.k8s-sigs.io"'
    ' in namespace "" exists and cannot be imported into the current release: invalid ownership '
    'metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set '
    'to "Helm"\n'
)
DRIVER = (
    "========== NVIDIA Software Installer ==========\n"
    "Starting installation of NVIDIA driver version 535.161.08 for Linux kernel version "
    "5.15.0-97-generic\n"
    "An instance of the NVIDIA driver is already running, aborting\n"
)
HELM_WAIT = (
    "$ helm install --wait gpu-operator -n gpu-operator --create-namespace nvidia/gpu-operator\n"
    "Error: INSTALLATION FAILED: context deadline exceeded\n"
)
PULL = (
    '  Warning  Failed  3m (x4 over 9m)  kubelet  Failed to pull image "nvcr.io/nvaie/vgpu-guest-'
    'driver-5:550.54.15-ubuntu22.04": failed to pull and unpack image "nvcr.io/nvaie/vgpu-guest-'
    'driver-5:550.54.15-ubuntu22.04": failed to resolve reference "nvcr.io/nvaie/vgpu-guest-'
    'driver-5:550.54.15-ubuntu22.04": failed to authorize: failed to fetch anonymous token: '
    "unexpected status from GET request to https://authn.nvidia.com/token?scope=repository"
    "%3Anvaie%2Fvgpu-guest-driver-5%3Apull&service=registry: 401 Unauthorized\n"
)
CREATING = (
    "NAMESPACE   NAME              READY   STATUS              RESTARTS   AGE\n"
    "default     pytorch-train-0   0/1     ContainerCreating   0          51m\n"
)


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        (NOT_READY_TAINT, "k8s-node-condition-taint", "node.kubernetes.io/not-ready"),
        (CONTROL_PLANE_TAINT, "k8s-taint-not-tolerated", "node-role.kubernetes.io/control-plane"),
        (NODES, "k8s-node-not-ready", "node gpu-worker-1 is NotReady"),
        (CONDITION, "k8s-kubelet-not-ready", "cni plugin not initialized"),
        (EVICTED, "k8s-pod-evicted", "short of ephemeral-storage"),
        (PSA, "k8s-pod-security-forbidden", "restricted:latest"),
        (HELM, "helm-resource-not-owned", 'CustomResourceDefinition "nodefeaturerules'),
        (DRIVER, "gpu-operator-driver-already-running", "/run/nvidia/nvidia-driver.pid"),
        (HELM_WAIT, "helm-wait-timeout", "Helm's INSTALLATION gave up waiting"),
        (PULL, "k8s-image-pull-unauthorized", "the registry refused it (401 Unauthorized)"),
        (
            CREATING,
            "k8s-pod-stuck-creating",
            "pytorch-train-0 has been in ContainerCreating for 51m",
        ),
    ],
)
def test_each_line_is_named_an_error_with_its_values(
    read: Read, matrix: Matrix, text: str, code: str, says: str
) -> None:
    (line,) = named_lines(read, matrix, text, code)
    assert line.severity == Severity.ERROR
    assert says in line.detail
    assert "k8s-warning-event" not in [f.code for f in findings_of(read, matrix, text)]


def test_a_gpu_taint_stays_the_gpu_entrys(read: Read, matrix: Matrix) -> None:
    found = findings_of(read, matrix, GPU_TAINT)
    assert error_lines(found, "k8s-gpu-taint-not-tolerated")
    assert not error_lines(found, "k8s-taint-not-tolerated")
    assert not error_lines(found, "k8s-node-condition-taint")


def test_a_cordoned_node_is_a_warning(read: Read, matrix: Matrix) -> None:
    text = "Name:               gpu-worker-1\nUnschedulable:      true\n"
    (line,) = named_lines(read, matrix, text, "k8s-node-cordoned")
    assert line.severity == Severity.WARN
    rows = "gpu-worker-1   Ready,SchedulingDisabled   <none>   41d   v1.29.4\n"
    assert named_lines(read, matrix, rows, "k8s-node-cordoned")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # Ready nodes, and a schedulable one
        ("gpu-worker-1    Ready      <none>          41d   v1.29.4\n", "k8s-node-not-ready"),
        ("Unschedulable:      false\n", "k8s-node-cordoned"),
        # the Ready condition True, with the kubelet's ready reason
        (
            "  Ready            True    Mon, 06 May 2024 10:12:01 +0000   Mon, 06 May 2024 "
            "09:03:40 +0000   KubeletReady                 kubelet is posting ready status\n",
            "k8s-kubelet-not-ready",
        ),
        # the privileged level admits everything: no refusal to name
        ('violates PodSecurity "privileged:latest": nothing\n', "k8s-pod-security-forbidden"),
        # ContainerCreating for a few minutes: an image may still be pulling
        (
            "pytorch-train-0   0/1     ContainerCreating   0          4m\n",
            "k8s-pod-stuck-creating",
        ),
        (
            "pytorch-train-0   0/1     ContainerCreating   0          14m\n",
            "k8s-pod-stuck-creating",
        ),
        # a pull that failed for a tag that does not exist: no credentials to blame
        (
            'Failed to pull image "nvcr.io/nvidia/cuda:12.9.9-base": rpc error: code = NotFound '
            "desc = failed to pull and unpack image: not found\n",
            "k8s-image-pull-unauthorized",
        ),
        # another Helm error: not a timeout
        (
            "Error: INSTALLATION FAILED: cannot re-use a name that is still in use\n",
            "helm-wait-timeout",
        ),
        # the driver container's normal start
        (
            "Starting installation of NVIDIA driver version 535.161.08 for Linux kernel version "
            "5.15.0-97-generic\n",
            "gpu-operator-driver-already-running",
        ),
    ],
)
def test_near_misses_are_not_named(read: Read, matrix: Matrix, text: str, code: str) -> None:
    try:
        found = named_lines(read, matrix, text, code)
    except FactsError:
        found = []  # nothing in it read at all
    assert found == []


def test_a_pod_creating_next_to_its_cause_is_that_causes_symptom(
    read: Read, matrix: Matrix
) -> None:
    text = CREATING + PSA
    found = findings_of(read, matrix, text)
    (creating,) = error_lines(found, "k8s-pod-stuck-creating")
    assert creating.severity == Severity.INFO
    (psa,) = error_lines(found, "k8s-pod-security-forbidden")
    assert psa.severity == Severity.ERROR
