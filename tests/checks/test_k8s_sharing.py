"""k8s-gpu-resource-name, k8s-gpu-sharing, k8s-gpu-node-selector, k8s-ray-num-gpus: a pod, its
node and the NVIDIA device plugin's config pasted together, judged against each other; pastes
that agree (the vendors' own examples) raise nothing."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

CODES = ("k8s-gpu-resource-name", "k8s-gpu-sharing", "k8s-gpu-node-selector", "k8s-ray-num-gpus")


def _config(
    strategy: str = "timeSlicing",
    replicas: int = 4,
    rename: bool = False,
    fail: bool = False,
    mig: str = "none",
) -> str:
    return (
        f"version: v1\nflags:\n  migStrategy: {mig}\nsharing:\n  {strategy}:\n"
        f"    renameByDefault: {str(rename).lower()}\n"
        f"    failRequestsGreaterThanOne: {str(fail).lower()}\n"
        f"    resources:\n    - name: nvidia.com/gpu\n      replicas: {replicas}\n---\n"
    )


def _pod(limits: dict[str, int], selector: dict[str, str] | None = None) -> str:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu-pod\nspec:\n"
    if selector:
        text += "  nodeSelector:\n" + "".join(f"    {k}: {v}\n" for k, v in selector.items())
    text += "  containers:\n  - name: cuda\n    image: nvcr.io/nvidia/cuda:12.4.1-base\n"
    text += "    resources:\n      limits:\n"
    return text + "".join(f"        {k}: {v}\n" for k, v in limits.items())


def _node(resources: dict[str, int], labels: dict[str, str] | None = None) -> str:
    shown = list((labels or {"nvidia.com/gpu.present": "true"}).items())
    text = "Name:               gpu-node-1\n"
    text += f"Labels:             {shown[0][0]}={shown[0][1]}\n"
    text += "".join(f"                    {k}={v}\n" for k, v in shown[1:])
    for block in ("Capacity", "Allocatable"):
        text += f"{block}:\n  cpu:  32\n  pods:  110\n"
        text += "".join(f"  {k}:  {v}\n" for k, v in resources.items())
    return text


def _findings(text: str, matrix: Matrix) -> dict[str, Finding]:
    facts = read_report(text, "paste.txt", matrix.architectures)
    return {f.code: f for f in run_checks(facts, matrix).findings if f.code in CODES}


_A100 = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}


@pytest.mark.parametrize(
    "text",
    [
        # the device plugin README's time-slicing examples: 8 GPUs x 10 replicas
        _config(replicas=10) + _pod({"nvidia.com/gpu": 1}) + _node({"nvidia.com/gpu": 80}),
        _config(replicas=10, rename=True)
        + _pod({"nvidia.com/gpu.shared": 1})
        + _node({"nvidia.com/gpu.shared": 80}),
        _config("mps", replicas=10, fail=True) + _pod({"nvidia.com/gpu": 1}),
        _pod({"nvidia.com/mig-1g.10gb": 1})
        + _node({"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": 7}),
        _pod({"nvidia.com/gpu": 1}, {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"})
        + _node({"nvidia.com/gpu": 8}, _A100),
        # HAMi: gpumem/gpucores are read by its scheduler, the node advertises nvidia.com/gpu
        _pod({"nvidia.com/gpu": 1, "nvidia.com/gpumem": 3000, "nvidia.com/gpucores": 30})
        + _node({"nvidia.com/gpu": 10}),
        _pod({"volcano.sh/vgpu-number": 2, "volcano.sh/vgpu-memory": 3000})
        + _node({"volcano.sh/vgpu-number": 10}),
        _pod({"aliyun.com/gpu-mem": 3}) + _node({"aliyun.com/gpu-mem": 60}),
    ],
)
def test_consistent_objects_raise_nothing(text: str, matrix: Matrix) -> None:
    facts = read_report(text, "paste.txt", matrix.architectures)
    bad = [
        (f.code, f.title)
        for f in run_checks(facts, matrix).findings
        if f.code.startswith("k8s-") and f.severity in (Severity.WARN, Severity.ERROR)
    ]
    assert bad == []


def test_renamed_shared_gpus_and_a_pod_asking_nvidia_com_gpu(matrix: Matrix) -> None:
    text = _config(rename=True) + _pod({"nvidia.com/gpu": 1}) + _node({"nvidia.com/gpu.shared": 32})
    found = _findings(text, matrix)["k8s-gpu-resource-name"]
    assert found.severity is Severity.ERROR
    assert "nvidia.com/gpu.shared: 32" in found.title
    assert "renameByDefault" in found.detail
    assert found.fix is not None
    assert "`nvidia.com/gpu.shared: 1`" in found.fix


def test_the_config_alone_tells_the_renamed_resource(matrix: Matrix) -> None:
    found = _findings(_config(rename=True) + _pod({"nvidia.com/gpu": 2}), matrix)
    assert found["k8s-gpu-resource-name"].severity is Severity.ERROR
    assert "nvidia.com/gpu: 2" in found["k8s-gpu-resource-name"].title


def test_the_mixed_strategy_advertises_mig_devices_not_gpus(matrix: Matrix) -> None:
    text = _pod({"nvidia.com/gpu": 1}) + _node({"nvidia.com/gpu": 0, "nvidia.com/mig-3g.40gb": 2})
    found = _findings(text, matrix)["k8s-gpu-resource-name"]
    assert found.severity is Severity.ERROR
    assert "mixed MIG strategy" in found.detail
    assert found.fix is not None
    assert "`nvidia.com/mig-3g.40gb: 1`" in found.fix
    facts = read_report(text, "paste.txt", matrix.architectures)
    (request,) = [f for f in run_checks(facts, matrix).findings if f.code == "k8s-gpu-request"]
    assert request.severity is Severity.NA  # not "ask for at most 0"


def test_a_mig_profile_under_the_single_strategy(matrix: Matrix) -> None:
    text = _pod({"nvidia.com/mig-1g.10gb": 1}) + _node({"nvidia.com/gpu": 7})
    found = _findings(text, matrix)["k8s-gpu-resource-name"]
    assert found.severity is Severity.ERROR
    assert "single MIG strategy" in found.detail


def test_a_sharing_scheduler_resource_the_node_lacks(matrix: Matrix) -> None:
    text = _pod({"volcano.sh/vgpu-number": 1}) + _node({"nvidia.com/gpu": 4})
    found = _findings(text, matrix)["k8s-gpu-resource-name"]
    assert found.severity is Severity.ERROR
    assert "Volcano's vGPU device plugin" in found.detail


def test_more_vgpus_than_the_node_advertises(matrix: Matrix) -> None:
    text = _pod({"volcano.sh/vgpu-number": 12}) + _node({"volcano.sh/vgpu-number": 10})
    found = _findings(text, matrix)["k8s-gpu-resource-name"]
    assert found.severity is Severity.ERROR
    assert "volcano.sh/vgpu-number: 12, the node advertises 10" in found.title


def test_fail_requests_greater_than_one(matrix: Matrix) -> None:
    found = _findings(_config(fail=True) + _pod({"nvidia.com/gpu": 3}), matrix)["k8s-gpu-sharing"]
    assert found.severity is Severity.ERROR
    assert "nvidia.com/gpu: 3" in found.title
    assert "UnexpectedAdmissionError" in found.detail


def test_several_replicas_without_fail_requests_is_a_warning(matrix: Matrix) -> None:
    found = _findings(_config() + _pod({"nvidia.com/gpu": 2}), matrix)["k8s-gpu-sharing"]
    assert found.severity is Severity.WARN
    assert "2 replicas" in found.title


def test_mps_with_the_mixed_mig_strategy(matrix: Matrix) -> None:
    found = _findings(_config("mps", mig="mixed"), matrix)["k8s-gpu-sharing"]
    assert found.severity is Severity.ERROR
    assert "not supported with MPS" in found.detail


def test_mps_replicas_over_the_clients_limit(matrix: Matrix) -> None:
    found = _findings(_config("mps", replicas=64), matrix)["k8s-gpu-sharing"]
    assert found.severity is Severity.ERROR
    assert "64 replicas" in found.title
    assert "64 > 48" in found.detail


@pytest.mark.parametrize(
    ("asked", "words"),
    [
        ("A100-SXM4-80GB", "sanitised"),  # without GFD's NVIDIA- prefix
        ("NVIDIA A100 SXM4 80GB", "sanitised"),  # spaces where GFD writes dashes
        ("NVIDIA-H100-80GB-HBM3", "not the one the pod asks for"),
    ],
)
def test_a_product_selector_the_node_does_not_match(asked: str, words: str, matrix: Matrix) -> None:
    text = _pod({"nvidia.com/gpu": 1}, {"nvidia.com/gpu.product": f'"{asked}"'}) + _node(
        {"nvidia.com/gpu": 8}, _A100
    )
    found = _findings(text, matrix)["k8s-gpu-node-selector"]
    assert found.severity is Severity.ERROR
    assert words in found.detail
    assert found.fix is not None
    assert "NVIDIA-A100-SXM4-80GB" in found.fix


def test_a_selector_on_a_label_the_node_lacks(matrix: Matrix) -> None:
    text = _pod({"nvidia.com/gpu": 1}, {"nvidia.com/gpu.family": "ampere"}) + _node(
        {"nvidia.com/gpu": 8}, _A100
    )
    found = _findings(text, matrix)["k8s-gpu-node-selector"]
    assert found.severity is Severity.ERROR
    assert "has no such label" in found.title


_RAY = """\
apiVersion: ray.io/v1
kind: RayCluster
spec:
  workerGroupSpecs:
  - groupName: gpu
    rayStartParams:
      num-gpus: "{wanted}"
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.9.0-gpu
          resources:
            limits:
              nvidia.com/gpu: {limit}
"""


@pytest.mark.parametrize(
    ("wanted", "limit", "severity"),
    [(4, 1, Severity.ERROR), (1, 4, Severity.WARN), (2, 2, Severity.OK)],
)
def test_ray_num_gpus_against_the_limit(
    wanted: int, limit: int, severity: Severity, matrix: Matrix
) -> None:
    found = _findings(_RAY.format(wanted=wanted, limit=limit), matrix)["k8s-ray-num-gpus"]
    assert found.severity is severity
    assert str(wanted) in found.title


_TWO_NODES = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata:
    labels:
      nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB
  status:
    allocatable: {cpu: "64", nvidia.com/gpu: "8", pods: "110"}
- kind: Node
  metadata:
    labels:
      nvidia.com/gpu.product: Tesla-T4
  status:
    allocatable: {cpu: "16", nvidia.com/gpu.shared: "4", pods: "110"}
---
"""


def test_with_several_nodes_a_pod_fits_any_one(matrix: Matrix) -> None:
    text = _TWO_NODES + _pod({"nvidia.com/gpu.shared": 1}, {"nvidia.com/gpu.product": "Tesla-T4"})
    found = _findings(text, matrix)
    assert found["k8s-gpu-resource-name"].severity is Severity.OK
    assert found["k8s-gpu-node-selector"].severity is Severity.OK
    text = _TWO_NODES + _pod({"nvidia.com/gpu": 1}, {"nvidia.com/gpu.product": "NVIDIA-L4"})
    assert _findings(text, matrix)["k8s-gpu-node-selector"].severity is Severity.ERROR


def test_a_node_without_any_gpu_resource_is_left_to_k8s_gpu_request(matrix: Matrix) -> None:
    text = _pod({"nvidia.com/gpu": 1}) + _node({"example.com/fpga": 1})
    facts = read_report(text, "paste.txt", matrix.architectures)
    found = {f.code: f for f in run_checks(facts, matrix).findings}
    assert found["k8s-gpu-resource-name"].severity is Severity.NA
    assert found["k8s-gpu-request"].severity is Severity.ERROR  # one error, not two
