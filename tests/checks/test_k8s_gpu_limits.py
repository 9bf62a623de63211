"""k8s-gpu-limits: a pasted pod spec (YAML) whose container names an nvidia.com/ resource under
requests without an equal limit (the API server rejects it), read and judged."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  restartPolicy: Never
  containers:
    - name: cuda-container
      image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
      resources:
{resources}
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
"""


def _finding(resources: str, matrix: Matrix) -> Finding:
    facts = read_report(_POD.format(resources=resources), "pod.yaml", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "k8s-gpu-limits"]
    return found


def test_a_request_without_a_limit_is_an_error_naming_the_count(matrix: Matrix) -> None:
    found = _finding("        requests:\n          nvidia.com/gpu: 2", matrix)
    assert found.severity is Severity.ERROR
    assert "requests nvidia.com/gpu: 2 and sets no limit of it" in found.title
    assert found.fix is not None
    assert "`nvidia.com/gpu: 2` under the container's" in found.fix


def test_a_request_unequal_to_its_limit_is_an_error(matrix: Matrix) -> None:
    resources = (
        "        limits:\n          memory: 8Gi\n          nvidia.com/gpu: 1\n"
        '        requests:\n          cpu: "2"\n          nvidia.com/gpu: "4"'
    )
    found = _finding(resources, matrix)
    assert found.severity is Severity.ERROR
    assert "requests nvidia.com/gpu: 4 and limits it to 1" in found.title
    assert "must be equal to nvidia.com/gpu limit" in found.detail


def test_a_time_sliced_resource_in_flow_style_is_read(matrix: Matrix) -> None:
    found = _finding("        requests: {nvidia.com/gpu.shared: 1}", matrix)
    assert found.severity is Severity.ERROR
    assert "nvidia.com/gpu.shared: 1" in found.title


@pytest.mark.parametrize(
    "resources",
    [
        # both, equal: what Kubernetes accepts
        "        limits:\n          nvidia.com/gpu: 1\n"
        "        requests:\n          nvidia.com/gpu: 1",
        '        requests:\n          nvidia.com/mig-1g.10gb: "1"\n        limits:\n'
        '          nvidia.com/mig-1g.10gb: "1"',
    ],
)
def test_an_equal_request_and_limit_is_ok(matrix: Matrix, resources: str) -> None:
    assert _finding(resources, matrix).severity is Severity.OK


@pytest.mark.parametrize(
    "resources",
    [
        # a limit alone: the request defaults to it
        "        limits:\n          nvidia.com/gpu: 1",
        # requests of cpu/memory only, the GPU in limits
        '        requests:\n          cpu: "1"\n        limits:\n          nvidia.com/gpu: 1',
    ],
)
def test_a_limit_alone_raises_nothing(matrix: Matrix, resources: str) -> None:
    assert _finding(resources, matrix).severity is Severity.NA


_SOUND = (
    "---\nspec:\n  containers:\n    - name: b\n      resources:\n        limits:\n"
    "          nvidia.com/gpu: 3\n        requests:\n          nvidia.com/gpu: 3\n"
)


@pytest.mark.parametrize("wrong_first", [True, False])
def test_the_container_in_error_is_judged_in_either_order(
    matrix: Matrix, wrong_first: bool
) -> None:
    wrong = _POD.format(resources="        requests:\n          nvidia.com/gpu: 2")
    text = wrong + _SOUND if wrong_first else _SOUND + wrong
    facts = read_report(text, "pods.yaml", matrix.architectures)
    assert facts.platform.k8s_gpu_spec_requests == 2
    assert facts.platform.k8s_gpu_spec_limits is None


def test_describe_pod_limits_and_requests_are_not_a_spec(matrix: Matrix) -> None:
    text = (
        "Name:         gpu-pod\nContainers:\n  cuda:\n    Limits:\n      nvidia.com/gpu:  1\n"
        "    Requests:\n      nvidia.com/gpu:  1\n"
    )
    facts = read_report(text, "describe.txt", matrix.architectures)
    assert facts.platform.k8s_gpu_spec_resource is None


def test_the_api_servers_rejection_line_is_what_the_check_predicts(matrix: Matrix) -> None:
    text = _POD.format(resources="        requests:\n          nvidia.com/gpu: 1") + (
        '$ kubectl apply -f pod.yaml\nThe Pod "gpu-pod" is invalid: spec.containers[0].resources'
        ".limits: Required value: Limit must be set for non overcommitable resources\n"
    )
    facts = read_report(text, "pod.txt", matrix.architectures)
    found = run_checks(facts, matrix).findings
    errors = [f for f in found if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["k8s-gpu-limits"]
    (line,) = [f for f in found if f.subject == "k8s-extended-resource-no-limit"]
    assert line.severity is Severity.INFO
