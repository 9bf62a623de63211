"""`kubectl get all` names each pod row by its kind (pod/nvidia-operator-validator-...): the
NVIDIA stack's pods are read from it as from `kubectl get pods`, so a validator held in its init
containers is judged (gpu-operator-stage), and a stack all Running says nothing is wrong."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_HEAD = "NAME                                           READY   STATUS     RESTARTS   AGE\n"


def test_get_all_pod_rows_are_read_as_the_stacks_pods(read: Read, matrix: Matrix) -> None:
    text = (
        _HEAD
        + "pod/nvidia-device-plugin-daemonset-rgl9z       0/1     Init:0/1   0          3m57s\n"
        "pod/nvidia-operator-validator-fbv4f            0/1     Init:0/4   0          3m57s\n"
    )
    pods = read(text).report.stack_pods
    assert [p.name for p in pods] == [
        "nvidia-device-plugin-daemonset-rgl9z",
        "nvidia-operator-validator-fbv4f",
    ]
    (stage,) = [f for f in findings_of(read, matrix, text) if f.code == "gpu-operator-stage"]
    assert stage.severity is Severity.WARN
    assert "nvidia-operator-validator-fbv4f" in stage.title


def test_a_get_all_stack_all_running_is_quiet(read: Read, matrix: Matrix) -> None:
    text = (
        _HEAD
        + "pod/nvidia-device-plugin-daemonset-rgl9z       1/1     Running    0          3m57s\n"
        "pod/nvidia-operator-validator-fbv4f            1/1     Running    0          3m57s\n"
    )
    assert len(read(text).report.stack_pods) == 2
    assert warn_or_error(findings_of(read, matrix, text)) == []
