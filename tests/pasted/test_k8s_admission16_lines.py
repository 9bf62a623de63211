"""Round 16, Kubernetes pod side: the kubelet's admission refusal "Allocate failed due to %v,
which is unexpected" (pkg/kubelet/cm/admission/errors.go) for any %v the specific entries do not
name, also where a YAML dump of the pod's status wraps the message before its tail; the specific
entries (the device manager's count, a plugin's rpc error) keep their own code."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]
CODE = "kubelet-admission-allocate-failed"


def _codes(read: Read, text: str) -> list[str]:
    try:
        facts = read(text + "\n")
    except FactsError:
        return []
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize(
    "text",
    [
        "  Warning  UnexpectedAdmissionError  4s  kubelet  Allocate failed due to no gpu "
        "assigned by the extender for container main, which is unexpected",
        # a `kubectl get pod -o yaml` status whose message wraps before ", which is unexpected"
        "status:\n  message: Pod Allocate failed due to pod 5d0e container trainer cannot find "
        "the devices the scheduler chose\n    for it, which is unexpected\n  phase: Failed\n"
        "  reason: UnexpectedAdmissionError",
    ],
)
def test_any_allocate_refusal_is_read(read: Read, text: str) -> None:
    assert CODE in _codes(read, text)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "  Warning  UnexpectedAdmissionError  10s  kubelet  Allocate failed due to requested "
            "number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0, which "
            "is unexpected",
            "kubelet-device-allocate",
        ),
        (
            "  Warning  UnexpectedAdmissionError  2m  kubelet  Allocate failed due to rpc error: "
            "code = Unavailable desc = error reading from server: EOF, which is unexpected",
            "device-plugin-allocate-rpc-failed",
        ),
    ],
)
def test_near_miss_specific_allocate_lines_keep_their_code(
    read: Read, line: str, code: str
) -> None:
    codes = _codes(read, line)
    assert code in codes
    assert CODE not in codes


def test_near_miss_a_pod_that_was_allocated_is_quiet(read: Read) -> None:
    assert CODE not in _codes(read, "I0912 05:46:46 manager.go:842] Allocated devices for pod")
