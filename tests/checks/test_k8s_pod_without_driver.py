"""A program's "no driver here" line in a Kubernetes pod gets the pod's fix (a nvidia.com/gpu
limit, the NVIDIA runtime by RuntimeClass or as the node's default), worded from what the report
shows of the pod and the node; the same line outside Kubernetes keeps the host/Docker wording."""

from __future__ import annotations

import pytest

from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import Read, error_lines, findings_of


def _read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


def _line(matrix: Matrix, text: str, code: str) -> Finding:
    (found,) = error_lines(findings_of(_read(matrix), matrix, text), code)
    return found


# (a paste's words that put it in a pod, the no-driver line, its signature code)
POD_LINES = [
    (
        "Running the image in a pod on our k0s 1.29 cluster (kubernetes) on ubuntu 22.04:",
        "/entrypoint.sh: line 52: nvidia-smi: command not found",
        "nvidia-smi-not-found",
    ),
    (
        "kubectl logs trainer-0 -n ml",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
        "torch-found-no-driver",
    ),
    (
        "The pod is Running on the GPU node of our Kubernetes cluster, but:",
        "RuntimeError: CUDA error: no CUDA-capable device is detected",
        "no-cuda-device",
    ),
]


@pytest.mark.parametrize(("context", "line", "code"), POD_LINES)
def test_a_pod_gets_the_pods_fix(matrix: Matrix, context: str, line: str, code: str) -> None:
    found = _line(matrix, f"{context}\n{line}\n", code)
    assert found.severity in (Severity.WARN, Severity.ERROR)
    assert "nvidia.com/gpu" in found.fix
    assert "runtimeClassName: nvidia" in found.fix
    assert "docker run" not in found.fix
    assert "pod" in found.detail


@pytest.mark.parametrize(("context", "line", "code"), POD_LINES)
def test_near_miss_outside_kubernetes_keeps_the_host_wording(
    matrix: Matrix, context: str, line: str, code: str
) -> None:
    # the same line on a workstation: no pod words, so no Kubernetes fix
    found = _line(matrix, f"On my Ubuntu 22.04 workstation:\n{line}\n", code)
    assert "runtimeClassName" not in found.fix
    assert "a pod" not in found.detail


POD_ASKS = """\
Name:             gpu
Namespace:        default
Status:           Running
Containers:
  gpu:
    Container ID:  containerd://68707cec263eb1bfaec27357d9f6c07b2545278183fe875dd5f43ea5de77c1b3
    Image:         nvidia/cuda:11.4.1-base-ubuntu20.04
    Limits:
      nvidia.com/gpu:  1
    Requests:
      nvidia.com/gpu:  1
$ kubectl exec -it gpu -- nvidia-smi
bash: nvidia-smi: command not found
"""


def test_a_pod_that_asks_for_a_gpu_is_told_the_runtime(matrix: Matrix) -> None:
    found = _line(matrix, POD_ASKS, "nvidia-smi-not-found")
    assert "asks for nvidia.com/gpu: 1" in found.detail
    assert "NVIDIA container runtime" in found.detail
    assert "runtimeClassName: nvidia" in found.fix
    assert "limits: nvidia.com/gpu" not in found.fix  # it has one already


def test_a_pod_asking_for_zero_is_told_the_limit(matrix: Matrix) -> None:
    text = POD_ASKS.replace("nvidia.com/gpu:  1", "nvidia.com/gpu:  0")
    found = _line(matrix, text, "nvidia-smi-not-found")
    assert "nvidia.com/gpu: 0" in found.detail
    assert "limits: nvidia.com/gpu: 1" in found.fix


def test_the_nodes_default_runtime_is_named(matrix: Matrix) -> None:
    config = (
        "$ cat /etc/containerd/config.toml\nversion = 2\n"
        '[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n'
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
        '  runtime_type = "io.containerd.runc.v2"\n'
    )
    found = _line(matrix, POD_ASKS + config, "nvidia-smi-not-found")
    assert "default runtime is runc" in found.detail


def test_a_k3s_node_is_told_its_own_containerd_template(matrix: Matrix) -> None:
    text = "k3s v1.29.4+k3s1 single node, kubernetes pod:\nbash: nvidia-smi: command not found\n"
    found = _line(matrix, text, "nvidia-smi-not-found")
    assert "config.toml.tmpl" in found.fix
    assert "systemctl restart containerd" not in found.fix


POD_NO_GPU = """\
Name:         inference-7d9f
Namespace:    default
Containers:
  server:
    Image:      myorg/onnx-server:1.2
    Limits:
      cpu:     6
      memory:  8G
    Requests:
      cpu:     500m
      memory:  4G
$ kubectl logs inference-7d9f
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU
"""


def test_a_pod_whose_limits_name_no_gpu_is_told_to_ask_for_one(matrix: Matrix) -> None:
    facts = read_report(POD_NO_GPU, "paste.txt", matrix.architectures)
    assert facts.platform.k8s_gpu_requested == 0
    found = _line(matrix, POD_NO_GPU, "torch-found-no-driver")
    assert "nvidia.com/gpu: 0" in found.detail
    assert "limits: nvidia.com/gpu: 1" in found.fix


def test_near_miss_the_nvidia_stacks_own_limits_are_not_the_pods(matrix: Matrix) -> None:
    # the device plugin's own pod names cpu/memory limits only, by design
    text = POD_NO_GPU.replace("inference-7d9f", "nvidia-device-plugin-daemonset-x2k9f")
    facts = read_report(text, "paste.txt", matrix.architectures)
    assert facts.platform.k8s_gpu_requested is None
    # a spec whose Limits hold the GPU asks for it
    asks = POD_NO_GPU.replace("memory:  8G\n", "memory:  8G\n      nvidia.com/gpu:  2\n", 1)
    assert read_report(asks, "paste.txt", matrix.architectures).platform.k8s_gpu_requested == 2


def test_a_line_of_the_nvidia_stack_is_told_the_runtime_not_a_limit(matrix: Matrix) -> None:
    text = (
        "deployed dcgm-exporter on kubernetes\n"
        "/usr/local/bin/dcgm-exporter: line 55: nvidia-smi: command not found\n"
    )
    found = _line(matrix, text, "nvidia-smi-not-found")
    assert "NVIDIA_VISIBLE_DEVICES=all" in found.detail
    assert "runtimeClassName: nvidia" in found.fix
    assert "limits: nvidia.com/gpu" not in found.fix


PLUGIN_NO_NVML = (
    "E0121 12:04:24.666400       1 main.go:123] Detected non-NVML platform: could not load NVML: "
    "libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
)


def test_the_device_plugins_nvml_line_gets_the_nodes_own_runtime_set_up(matrix: Matrix) -> None:
    k3s = _line(matrix, "k3s v1.29.4+k3s1 cluster\n" + PLUGIN_NO_NVML, "device-plugin-no-nvml")
    assert "k3s/agent/etc/containerd/config.toml.tmpl" in k3s.fix
    docker = _line(
        matrix,
        "NAME   STATUS   ROLES   AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE   "
        "KERNEL-VERSION   CONTAINER-RUNTIME\n"
        "gpu-01   Ready   <none>   12d   v1.21.4   10.0.0.12   <none>   Ubuntu 20.04.3 LTS   "
        "5.4.0-88-generic   docker://20.10.8\n" + PLUGIN_NO_NVML,
        "device-plugin-no-nvml",
    )
    assert "--runtime=docker --set-as-default" in docker.fix


def test_near_miss_without_node_facts_the_entrys_fix_stays(matrix: Matrix) -> None:
    plain = _line(matrix, "kubernetes cluster\n" + PLUGIN_NO_NVML, "device-plugin-no-nvml")
    assert "--runtime=containerd --set-as-default" in plain.fix
    assert "config.toml.tmpl" not in plain.fix


def test_gke_is_told_the_gpu_request_not_a_runtime(matrix: Matrix) -> None:
    text = (
        "Deploying on GKE GPU nodes (NVIDIA T4):\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    found = _line(matrix, text, "torch-found-no-driver")
    assert "/usr/local/nvidia" in found.detail
    assert "limits: nvidia.com/gpu: 1" in found.fix
    assert "runtimeClassName" not in found.fix
    # near miss: the pod asks for a GPU on GKE: the node's driver installation
    asked = POD_ASKS.replace("Name:             gpu", "GKE cluster\nName:             gpu")
    installed = _line(matrix, asked, "nvidia-smi-not-found")
    assert "gpu-driver-version" in installed.fix
    assert "runtimeClassName" not in installed.fix


def test_the_pod_reading_comes_before_the_containers() -> None:
    from gpudoctor.checks.line_readings import READINGS

    names = [name for name, _ in READINGS]
    # a pod is a container too: the pod's reading must speak first, or it never does
    assert names.index("k8s-pod-driver") < names.index("container-driver")
