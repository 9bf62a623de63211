"""k8s-gpu-unrequested: a pasted pod that asks for no nvidia.com/gpu while the report says it
means to use a GPU (the pods share one, or it sets NVIDIA_VISIBLE_DEVICES) warns with the
limit and the device plugin's sharing as the fix; a pod that asks for a GPU, a paste that does
not say, and a pod whose "no driver" line carries the fix stay quiet."""

from __future__ import annotations

import pytest

from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import findings_of

CODE = "k8s-gpu-unrequested"

_SHARED = "Our pods share a single GPU on the node, so each container sets only CPU limits:\n"
_NO_GPU_LIMITS = """\
resources:
  limits:
    cpu: "2"
    memory: 4Gi
"""
_GPU_LIMITS = """\
resources:
  limits:
    memory: 4Gi
    nvidia.com/gpu: 1
"""
_DESCRIBE_ENV = """\
Containers:
  trainer:
    Image:      nvcr.io/nvidia/pytorch:24.01-py3
    Limits:
      cpu:     4
      memory:  16Gi
    Environment:
      NVIDIA_VISIBLE_DEVICES:  all
"""


def _ours(matrix: Matrix, text: str) -> list[Finding]:
    read = lambda t: read_report(t, "paste.txt", matrix.architectures)  # noqa: E731
    return [f for f in findings_of(read, matrix, text) if f.code == CODE]


@pytest.mark.parametrize(
    "text",
    [
        _SHARED + _NO_GPU_LIMITS,
        "Several pods use the same GPU; the deployment's container has\n" + _NO_GPU_LIMITS,
        _DESCRIBE_ENV,
    ],
)
def test_a_pod_meant_for_a_gpu_without_a_request_warns(matrix: Matrix, text: str) -> None:
    (found,) = _ours(matrix, text)
    assert found.severity == Severity.WARN
    assert "nvidia.com/gpu: 1" in found.fix
    assert "timeSlicing" in found.fix


@pytest.mark.parametrize(
    "text",
    [
        # the pod asks for its GPU
        _SHARED + _GPU_LIMITS,
        # a pod asking for none with nothing that says it means to use a GPU
        "Ubuntu 22.04, Kubernetes v1.29.1\n" + _NO_GPU_LIMITS,
        # sharing said, but what the pod asks for is not in the paste
        _SHARED + "nvidia.com/gpu: 1 is advertised by the node\n",
        # NVIDIA_VISIBLE_DEVICES=void asks the runtime for no GPU
        _DESCRIBE_ENV.replace(":  all", ":  void"),
        # the pod's own no-driver line carries the same fix (checks/k8s_pod.py)
        _SHARED + _NO_GPU_LIMITS + "/entrypoint.sh: line 52: nvidia-smi: command not found\n",
    ],
)
def test_near_miss_stays_quiet(matrix: Matrix, text: str) -> None:
    assert _ours(matrix, text) == []
