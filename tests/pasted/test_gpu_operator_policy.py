"""The GPU Operator's ClusterPolicy as people paste it: its Ready condition's message (and the
operator's error log of it) naming the first state not ready, `kubectl get clusterpolicies`'
STATUS column, and the node labels by which the operator keeps its device plugin off a node."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

POLICY_YAML = """\
$ kubectl get clusterpolicies.nvidia.com cluster-policy -o yaml
apiVersion: nvidia.com/v1
kind: ClusterPolicy
status:
  conditions:
  - lastTransitionTime: "2024-05-01T10:00:00Z"
    message: 'ClusterPolicy is not ready; states not ready: [state-container-toolkit {second}]'
    reason: OperandNotReady
    status: "False"
    type: Ready
  namespace: gpu-operator
  state: notReady
""".format(second="state-operator-validation")
ERROR_LOG = (
    '{"level":"error","ts":1715000000.1,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy '
    'not yet ready","error":"ClusterPolicy is not ready; states not ready: [state-driver]"}\n'
)
READY_LOG = (
    '{"level":"info","ts":1715000100.2,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy '
    'is ready as all resources have been successfully reconciled"}\n'
)


def test_the_conditions_first_state_not_ready_is_named(read: Read, matrix: Matrix) -> None:
    for text, state in ((POLICY_YAML, "state-container-toolkit"), (ERROR_LOG, "state-driver")):
        (line,) = error_lines(findings_of(read, matrix, text), "gpu-operator-policy-not-ready")
        assert line.severity is Severity.WARN
        assert f"first state not ready is {state}" in line.detail
        assert f"pods of {state}" in line.fix


def test_near_miss_the_operator_ready_after_start_up_is_quiet(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, ERROR_LOG + READY_LOG)
    assert not warn_or_error(findings)
    (line,) = error_lines(findings, "gpu-operator-policy-not-ready")
    assert line.severity is Severity.INFO


def test_the_status_column_of_get_clusterpolicies(read: Read, matrix: Matrix) -> None:
    table = "$ kubectl get clusterpolicies.nvidia.com\nNAME             STATUS     AGE\n"
    text = table + "cluster-policy   notReady   2024-05-01T10:00:00Z\n"
    (line,) = error_lines(findings_of(read, matrix, text), "gpu-operator-policy-state")
    assert line.severity is Severity.WARN
    assert "cluster-policy is notReady" in line.detail
    # near misses: a ready policy, and a node NotReady in `kubectl get nodes`
    smi = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    ready = smi + table + "cluster-policy   ready      2024-05-01T10:00:00Z\n"
    assert not error_lines(findings_of(read, matrix, ready), "gpu-operator-policy-state")
    nodes = (
        "NAME       STATUS     ROLES    AGE   VERSION\n"
        "gpu-node   NotReady   <none>   5d    v1.29.3\n"
    )
    assert not error_lines(findings_of(read, matrix, smi + nodes), "gpu-operator-policy-state")


NODE = """\
Name:               gpu-node-1
Labels:             nvidia.com/gpu.present=true
                    {label}
Capacity:
  cpu:                64
  pods:               110
Allocatable:
  cpu:                64
  pods:               110
"""


def test_a_deploy_label_set_false_is_why_the_node_has_no_gpu(read: Read, matrix: Matrix) -> None:
    for label, said in (
        ("nvidia.com/gpu.deploy.device-plugin=false", "gpu.deploy.device-plugin=false"),
        ("nvidia.com/gpu.deploy.operands=false", "gpu.deploy.operands=false"),
        ("nvidia.com/gpu.workload.config=vm-passthrough", "is vm-passthrough"),
    ):
        findings = findings_of(read, matrix, NODE.format(label=label))
        (unhealthy,) = [f for f in findings if f.code == "k8s-gpu-unhealthy"]
        assert unhealthy.severity is Severity.WARN
        assert said in unhealthy.detail, label
    # near miss: the operator's own "true" leaves the general reasons
    findings = findings_of(
        read, matrix, NODE.format(label="nvidia.com/gpu.deploy.device-plugin=true")
    )
    (unhealthy,) = [f for f in findings if f.code == "k8s-gpu-unhealthy"]
    assert "deploy.device-plugin" not in unhealthy.detail
    assert "nodeSelector" in unhealthy.detail
