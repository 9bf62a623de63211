"""pasted/k8s_objects.py: pods, nodes and the NVIDIA device plugin's config read as objects from
the forms people paste (YAML manifests and ConfigMaps, `kubectl get -o json` at the start of a
paste or further down, `kubectl describe`), into the facts the sharing checks compare."""

from __future__ import annotations

import json
from collections.abc import Callable

from gpudoctor.facts import HostFacts, K8sItem

Read = Callable[[str], HostFacts]

_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: time-slicing-config
  namespace: gpu-operator
data:
  a100-80gb: |-
    version: v1
    flags:
      migStrategy: mixed
    sharing:
      timeSlicing:
        renameByDefault: true
        failRequestsGreaterThanOne: true
        resources:
        - name: nvidia.com/gpu
          replicas: 8
        - name: nvidia.com/mig-1g.10gb
          rename: mig-small
          replicas: 2
"""


def _pairs(items: tuple[K8sItem, ...]) -> dict[str, str]:
    return {item.name: item.value for item in items}


def test_a_configmap_holding_the_plugins_config_is_read(read: Read) -> None:
    p = read(_CONFIGMAP).platform
    assert p.k8s_sharing == "time-slicing"
    assert p.k8s_sharing_rename is True
    assert p.k8s_sharing_fail_over_one is True
    assert p.k8s_mig_strategy == "mixed"
    # renameByDefault adds .shared; a resource's own rename replaces the name after the domain
    assert _pairs(p.k8s_sharing_resources) == {
        "nvidia.com/gpu.shared": "8",
        "nvidia.com/mig-small": "2",
    }


def test_mps_is_taken_where_both_are_given(read: Read) -> None:
    text = (
        "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
        "      replicas: 4\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n"
    )
    p = read(text).platform
    assert p.k8s_sharing == "mps"
    assert p.k8s_sharing_rename is False
    assert _pairs(p.k8s_sharing_resources) == {"nvidia.com/gpu": "3"}


_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "trainer"},
    "spec": {
        "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "disk": "ssd"},
        "containers": [
            {"name": "a", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "2"}}},
            {"name": "b", "image": "y", "resources": {"limits": {"nvidia.com/gpu": 4, "cpu": 8}}},
        ],
    },
}


def test_a_json_pod_at_the_start_is_read_like_yaml(read: Read) -> None:
    p = read(json.dumps(_POD, indent=4)).platform
    # the largest of its containers; only nvidia.com/ keys of its node selector
    assert _pairs(p.k8s_pod_resources) == {"nvidia.com/gpu": "4"}
    assert _pairs(p.k8s_pod_selector) == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}


def test_a_json_node_list_further_down_is_read(read: Read) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "kind": "Node",
                "metadata": {"name": "n1", "labels": {"nvidia.com/gpu.product": "Tesla-T4"}},
                "status": {
                    "capacity": {"cpu": "8", "nvidia.com/gpu.shared": "4"},
                    "allocatable": {"cpu": "8", "nvidia.com/gpu.shared": "3"},
                },
            }
        ],
    }
    text = "here is my node:\n\n" + json.dumps(node, indent=2) + "\nthanks\n"
    p = read(text).platform
    assert _pairs(p.k8s_node_resources) == {"nvidia.com/gpu.shared": "3"}  # Allocatable first
    assert _pairs(p.k8s_node_labels) == {"nvidia.com/gpu.product": "Tesla-T4"}


_DESCRIBE = """\
Name:             infer-0
Namespace:        default
Node:             <none>
Containers:
  server:
    Image:      nvcr.io/nvidia/tritonserver:24.05-py3
    Limits:
      nvidia.com/mig-1g.10gb:  1
    Requests:
      nvidia.com/mig-1g.10gb:  1
Node-Selectors:              nvidia.com/gpu.product=A100-SXM4-80GB
                             nvidia.com/mig.strategy=mixed
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
Events:
  Type     Reason            Age   From               Message
  ----     ------            ----  ----               -------
  Warning  FailedScheduling  12s   default-scheduler  0/1 nodes are available: 1 Insufficient \
nvidia.com/mig-1g.10gb.

Name:               gpu-node-1
Roles:              <none>
Labels:             beta.kubernetes.io/arch=amd64
                    nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB
                    nvidia.com/mig.strategy=single
Capacity:
  cpu:             64
  nvidia.com/gpu:  7
  pods:            110
Allocatable:
  cpu:             64
  nvidia.com/gpu:  7
  pods:            110
"""


def test_kubectl_describe_of_a_pod_and_its_node(read: Read) -> None:
    p = read(_DESCRIBE).platform
    assert _pairs(p.k8s_pod_resources) == {"nvidia.com/mig-1g.10gb": "1"}
    assert _pairs(p.k8s_pod_selector) == {
        "nvidia.com/gpu.product": "A100-SXM4-80GB",
        "nvidia.com/mig.strategy": "mixed",
    }
    assert _pairs(p.k8s_node_resources) == {"nvidia.com/gpu": "7"}
    assert _pairs(p.k8s_node_labels)["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB"
    assert p.k8s_mig_strategy == "single"  # GFD's label, no config in the paste


def test_the_required_node_affinity_and_flow_style_limits(read: Read) -> None:
    text = """\
apiVersion: batch/v1
kind: Job
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: nvidia.com/gpu.product
                operator: In
                values: [NVIDIA-L4, Tesla-T4]
              - key: nvidia.com/gpu.present
                operator: Exists
      containers:
      - name: job
        image: busybox
        resources:
          limits: {nvidia.com/gpu.shared: 1, memory: 8Gi}
"""
    p = read(text).platform
    assert _pairs(p.k8s_pod_resources) == {"nvidia.com/gpu.shared": "1"}
    assert _pairs(p.k8s_pod_selector) == {
        "nvidia.com/gpu.product": "NVIDIA-L4,Tesla-T4",
        "nvidia.com/gpu.present": "*",
    }


def test_a_kuberay_group_with_num_gpus(read: Read) -> None:
    text = """\
apiVersion: ray.io/v1
kind: RayCluster
spec:
  headGroupSpec:
    rayStartParams:
      num-gpus: "0"
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.9.0
  workerGroupSpecs:
  - groupName: gpu
    rayStartParams:
      num-gpus: "2"
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.9.0-gpu
          resources:
            limits:
              nvidia.com/gpu: "1"
"""
    p = read(text).platform
    # the head's 0 of 0 agrees; the worker group's 2 against 1 is the one kept
    assert (p.k8s_ray_num_gpus, p.k8s_ray_gpu_limit) == (2, 1)


def test_pods_without_a_gpu_limit_and_other_objects_are_not_gpu_pods(read: Read) -> None:
    text = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nvidia-device-plugin-daemonset
spec:
  template:
    spec:
      nodeSelector:
        nvidia.com/gpu.present: "true"
      containers:
      - name: nvidia-device-plugin-ctr
        image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0
        resources:
          limits:
            memory: 200Mi
---
apiVersion: v1
kind: LimitRange
spec:
  limits:
  - type: Container
    max:
      nvidia.com/gpu: "2"
"""
    p = read(text).platform
    assert p.k8s_pod_resources == ()
    assert p.k8s_pod_selector == ()


def test_show_labels_and_several_nodes_keep_every_value(read: Read) -> None:
    text = """\
NAME         STATUS   ROLES    AGE   VERSION   LABELS
gpu-node-1   Ready    <none>   40d   v1.29.4   kubernetes.io/os=linux,nvidia.com/gpu.count=1,\
nvidia.com/gpu.product=Tesla-T4-SHARED,nvidia.com/gpu.replicas=4
gpu-node-2   Ready    <none>   40d   v1.29.4   kubernetes.io/os=linux,nvidia.com/gpu.count=8,\
nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB
"""
    labels = _pairs(read(text).platform.k8s_node_labels)
    assert labels["nvidia.com/gpu.product"] == "Tesla-T4-SHARED,NVIDIA-A100-SXM4-80GB"
    assert labels["nvidia.com/gpu.count"] == "1,8"


def test_a_json_configmap_further_down_holds_the_config_as_a_string(read: Read) -> None:
    config = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n"
    config += "      replicas: 4\n"
    document = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"config.yaml": config}}
    text = "$ kubectl get cm plugin-config -o json\n" + json.dumps(document, indent=4) + "\n"
    p = read(text).platform
    assert p.k8s_sharing == "mps"
    assert _pairs(p.k8s_sharing_resources) == {"nvidia.com/gpu": "4"}


_JQ_NODE = """\
$ kubectl get node worker-7 -o json | jq .metadata.labels
{
  "kubernetes.io/hostname": "worker-7",
  "nvidia.com/gpu.count": "4",
  "nvidia.com/gpu.present": "true",
  "nvidia.com/gpu.product": "NVIDIA-L40S"
}
$ kubectl get node worker-7 -o json | jq .status.capacity
{
  "cpu": "64",
  "nvidia.com/gpu": "4",
  "pods": "110"
}
$ kubectl get node worker-7 -o json | jq .status.allocatable
{
  "cpu": "63",
  "nvidia.com/gpu": "3",
  "pods": "110"
}
"""


def test_maps_jq_printed_alone_are_the_nodes_labels_and_the_list_the_command_names(
    read: Read,
) -> None:
    p = read(_JQ_NODE).platform
    assert _pairs(p.k8s_node_labels)["nvidia.com/gpu.product"] == "NVIDIA-L40S"
    assert _pairs(p.k8s_node_capacity) == {"nvidia.com/gpu": "4"}
    assert _pairs(p.k8s_node_allocatable) == {"nvidia.com/gpu": "3"}


def test_a_jq_capacity_map_without_a_gpu_is_a_node_that_advertises_none(read: Read) -> None:
    text = _JQ_NODE.partition("$ kubectl get node worker-7 -o json | jq .status.allocatable")[0]
    text = text.replace('  "nvidia.com/gpu": "4",\n', "")
    p = read(text).platform
    assert _pairs(p.k8s_node_capacity) == {"nvidia.com/gpu": "0"}
    assert p.k8s_node_allocatable == ()
    # a map of other labels (no GPU feature discovery's) is no node's labels
    plain = read(
        '$ kubectl get pod x -o json | jq .metadata.labels\n{\n  "app": "x",\n  "pods": "1"\n}\n'
    )
    assert plain.platform.k8s_node_labels == ()
