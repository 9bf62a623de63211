"""A paste that is one JSON object is a snapshot only when it holds a snapshot's own keys: a
Kubernetes object (`kubectl get node -o json`), `docker inspect` or one structured log record
(zap's JSON, Docker's json-file) is a report, read for its facts and lines like any other."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.load import load_facts

Read = Callable[[str], HostFacts]


def _node(gpus: int, mig: int | None = None) -> str:
    """A GPU node as `kubectl get node -o json` prints it (the parts the readers use)."""
    resources = {"cpu": "64", "nvidia.com/gpu": str(gpus)}
    if mig is not None:
        resources["nvidia.com/mig-1g.10gb"] = str(mig)
    doc = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "labels": {
                "nvidia.com/cuda.driver.major": "535",
                "nvidia.com/cuda.driver.minor": "104",
                "nvidia.com/cuda.driver.rev": "05",
                "nvidia.com/gpu.count": "4",
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
            },
            "name": "gpu-node-1",
        },
        "status": {"allocatable": resources, "capacity": resources},
    }
    return json.dumps(doc, indent=4) + "\n"


def test_a_node_object_is_a_report_with_its_labels_and_resources(tmp_path: Path) -> None:
    path = tmp_path / "node.json"
    path.write_text(_node(4))
    facts = load_facts(path)
    assert facts.report is not None
    assert facts.nvml.driver_version == "535.104.05"
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA A100 SXM4 80GB"] * 4
    assert facts.platform.k8s_gpu_capacity == 4
    assert facts.platform.k8s_gpu_allocatable == 4


def test_a_node_advertising_no_gpu_in_json_is_the_same_error(read: Read, matrix: Matrix) -> None:
    findings = run_checks(read(_node(0)), matrix).findings
    (zero,) = [f for f in findings if f.subject == "k8s-node-zero-gpus"]
    assert zero.severity is Severity.ERROR


def test_zero_gpus_beside_json_mig_devices_is_the_mixed_strategy(
    read: Read, matrix: Matrix
) -> None:
    findings = run_checks(read(_node(0, mig=7)), matrix).findings
    (zero,) = [f for f in findings if f.subject == "k8s-node-zero-gpus"]
    assert zero.severity is Severity.INFO


@pytest.mark.parametrize(
    "record",
    [
        # zap, as the GPU Operator logs
        {
            "level": "error",
            "ts": 1700000000.1,
            "msg": "Failed to apply transformation",
            "error": "nvidia-container-cli: initialization error: nvml error: driver not loaded\n",
        },
        # Docker's json-file log driver, one line of the device plugin's stderr
        {
            "log": "I0910 10:00:00.000000       1 factory.go:107] Detected non-NVML platform: "
            "could not load NVML library: libnvidia-ml.so.1: cannot open shared object file: "
            "No such file or directory\n",
            "stream": "stderr",
            "time": "2024-01-01T00:00:00Z",
        },
    ],
)
def test_one_structured_log_record_is_read_as_a_report(tmp_path: Path, record: object) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(record) + "\n")
    facts = load_facts(path)
    assert facts.report is not None
    assert facts.report.errors


def test_json_without_facts_or_snapshot_keys_says_what_it_is_not(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"name": "web", "replicas": 3}\n')
    with pytest.raises(FactsError, match="not a gpudoctor snapshot"):
        load_facts(path)


def test_a_snapshot_missing_its_schema_version_is_still_judged_as_one(tmp_path: Path) -> None:
    path = tmp_path / "host.json"
    path.write_text('{"platform": {}, "nvml": {"driver_version": "550.54.15"}}\n')
    with pytest.raises(FactsError, match="no schema_version"):
        load_facts(path)
