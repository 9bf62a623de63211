"""A paste that is a JSON document (`kubectl get pod -o json`, `docker inspect`) is read for the
same facts as its YAML or text form: each `"key": "value",` line reads as `key: value`."""

from __future__ import annotations

import json
from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.pasted.clean import clean

Read = Callable[[str], HostFacts]


def _pod(runtime_class: str, resources: dict[str, object], selector: dict[str, str]) -> str:
    """A pod as `kubectl get pod -o json` prints it (the parts the readers use)."""
    doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "cuda-vectoradd", "namespace": "default"},
        "spec": {
            "runtimeClassName": runtime_class,
            "nodeSelector": selector,
            "containers": [
                {
                    "image": "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
                    "name": "cuda-vectoradd",
                    "resources": resources,
                }
            ],
        },
        "status": {"phase": "Pending"},
    }
    return json.dumps(doc, indent=4) + "\n"


def test_a_pod_in_json_gives_its_runtime_class_and_gpu_limit(read: Read) -> None:
    facts = read(_pod("nvidia", {"limits": {"nvidia.com/gpu": "2"}}, {}))
    assert facts.container_runtime.runtime_class_nvidia is True
    assert facts.platform.k8s_gpu_requested == 2


def test_a_pod_asking_no_gpu_in_json_asks_for_none(read: Read) -> None:
    # near miss: the GPU resource named in a node selector, another runtime class
    facts = read(_pod("kata", {"limits": {"cpu": "2"}}, {"nvidia.com/gpu.present": "true"}))
    assert facts.container_runtime.runtime_class_nvidia is not True
    assert not facts.platform.k8s_gpu_requested  # none asked (0, or not said)


def test_json_members_read_as_yaml_keeping_lines() -> None:
    text = (
        '{\n    "a": {\n        "key": "a \\"quoted\\" value",\n        "n": 4,\n'
        '        "list": [\n            "X=1"\n        ]\n    }\n}\n'
    )
    shown = '{\n  a:\n    key: a "quoted" value\n    n: 4\n    list:\n      X=1\n'
    assert clean(text) == shown + "        ]\n    }\n}\n"


def test_text_that_is_no_json_document_is_left_as_it_is() -> None:
    # a TF build-info dict (single quotes) and a JSON line inside a log are not documents
    tf = "{'cuda_version': '12.3', 'cudnn_version': '8'}\n"
    assert clean(tf) == tf
    log = 'starting\n    "runtimeClassName": "nvidia",\n'
    assert clean(log) == log


_SMI_TABLE = (
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |\n"
    "| N/A   33C    P0             61W /  400W |       1MiB /  81920MiB |      0%      Default |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
)


def test_a_docker_json_log_is_read_as_the_lines_it_holds(read: Read) -> None:
    # `/var/lib/docker/containers/ID/ID-json.log` of a container that ran nvidia-smi: each
    # line a record; read as the table it holds
    log = "".join(
        json.dumps({"log": line + "\n", "stream": "stdout", "time": "2024-03-05T10:00:01Z"}) + "\n"
        for line in _SMI_TABLE.splitlines()
    )
    facts = read(log)
    (gpu,) = facts.nvml.gpus
    assert gpu.pci_bus_id == "0000:07:00.0"
    assert gpu.memory_total_bytes == 81920 << 20


def test_json_lines_without_a_message_stay_as_they_are() -> None:
    # near miss: JSON lines that are no log records (no log/msg/message field)
    text = '{"gpu": 0, "util": 12}\n{"gpu": 1, "util": 40}\n'
    assert clean(text) == text
