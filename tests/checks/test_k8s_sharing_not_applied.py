"""k8s-gpu-sharing, config not applied: a device plugin config that shares nvidia.com/gpu N ways
beside a node that advertises one nvidia.com/gpu per GPU (GFD's nvidia.com/gpu.count, or
nvidia.com/gpu.replicas=1) warns that the plugin runs without that config, naming the
config.name / config.default / node label; a node that advertises the replicas stays quiet."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_CONFIG = """\
version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 4
---
"""


def _node(gpus: int, labels: dict[str, str]) -> str:
    shown = list(labels.items())
    text = "Name:               gpu-node-1\n"
    text += f"Labels:             {shown[0][0]}={shown[0][1]}\n"
    text += "".join(f"                    {k}={v}\n" for k, v in shown[1:])
    for block in ("Capacity", "Allocatable"):
        text += f"{block}:\n  cpu:  32\n  pods:  110\n  nvidia.com/gpu:  {gpus}\n"
    return text


def _sharing(matrix: Matrix, text: str) -> Finding:
    facts = read_report(text, "paste.txt", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "k8s-gpu-sharing"]
    return found


@pytest.mark.parametrize(
    "labels",
    [
        {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "2"},
        {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.replicas": "1"},
    ],
)
def test_replicas_configured_but_not_advertised_warns(
    matrix: Matrix, labels: dict[str, str]
) -> None:
    found = _sharing(matrix, _CONFIG + _node(2, labels))
    assert found.severity == Severity.WARN
    assert "not applied" in found.title
    assert "config.name" in found.fix
    assert "nvidia.com/device-plugin.config" in found.fix


@pytest.mark.parametrize(
    ("gpus", "labels"),
    [
        # applied: 2 GPUs x 4 replicas advertised, GFD's replicas label agrees
        (8, {"nvidia.com/gpu.count": "2", "nvidia.com/gpu.replicas": "4"}),
        # the GPUs' count is not in the paste: nothing to compare with
        (2, {"nvidia.com/gpu.present": "true"}),
    ],
)
def test_near_miss_stays_quiet(matrix: Matrix, gpus: int, labels: dict[str, str]) -> None:
    found = _sharing(matrix, _CONFIG + _node(gpus, labels))
    assert found.severity not in (Severity.WARN, Severity.ERROR)
