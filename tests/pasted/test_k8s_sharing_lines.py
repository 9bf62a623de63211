"""GPU-sharing schedulers' own lines: HAMi's scheduler events (one per reason, "%d nodes
%s(%s)"), a pod Pending on Alibaba's gpushare resource, and the device plugin's config errors
about its devices spec and resource patterns. Each is named by its entry with the line's numbers
in the cause, and a near miss is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import named_lines

Read = Callable[[str], HostFacts]

_EVENT = "  Warning  FilteringFailed   12s   hami-scheduler     "
_PARSE = (
    "E0412 10:11:12.123456       1 main.go:198] error starting plugins: unable to load config: "
    "unable to finalize config: unable to parse config file: error parsing config file: unmarshal "
    "error: error unmarshaling JSON: while decoding JSON: "
)


@pytest.mark.parametrize(
    ("line", "code", "carried"),
    [
        (_EVENT + "3 nodes CardInsufficientMemory(a,b,c)", "hami-gpu-share-exhausted", "3 node"),
        (_EVENT + "1 nodes CardTimeSlicingExhausted(gpu-1)", "hami-gpu-share-exhausted", "1 node"),
        (_EVENT + "2 nodes CardUuidMismatch(gpu-1,gpu-2)", "hami-gpu-type-mismatch", "2 node"),
        (_EVENT + "4 nodes NodeInsufficientDevice(a,b,c,d)", "hami-node-too-few-gpus", "4 node"),
        (
            "0/5 nodes are available: 5 Insufficient aliyun.com/gpu-mem.",
            "k8s-insufficient-gpu",
            "aliyun.com/gpu-mem",
        ),
        (
            _PARSE + 'unrecognized type for devices spec: {"count":2}',
            "device-plugin-sharing-config-invalid",
            "unrecognized type for devices spec",
        ),
        (
            _PARSE + "resources must have a 'name' field set",
            "device-plugin-sharing-config-invalid",
            "'name' field set",
        ),
    ],
)
def test_the_line_is_named_with_its_values(
    read: Read, matrix: Matrix, line: str, code: str, carried: str
) -> None:
    (found,) = named_lines(read, matrix, line, code)
    assert found.severity is Severity.ERROR
    assert carried in found.detail


def test_the_reason_is_in_the_cause(read: Read, matrix: Matrix) -> None:
    line = _EVENT + "2 nodes CardInsufficientCore(gpu-1,gpu-2)"
    (found,) = named_lines(read, matrix, line, "hami-gpu-share-exhausted")
    assert "(CardInsufficientCore)" in found.detail
    assert found.fix is not None
    assert "nvidia.com/gpucores" in found.fix


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the scheduler's success event and its klog line carry no failure reason
        (
            "  Normal   FilteringSucceed  12s   hami-scheduler     find fit node(gpu-1), "
            "0 nodes not fit, 1 nodes fit(gpu-1:3.50)",
            "hami-gpu-share-exhausted",
        ),
        ("CardTypeMismatch is one of HAMi's reasons", "hami-gpu-type-mismatch"),
        ("the node has 2 aliyun.com/gpu-mem left", "k8s-insufficient-gpu"),
    ],
)
def test_a_near_miss_is_not_named(read: Read, matrix: Matrix, line: str, code: str) -> None:
    try:
        named = named_lines(read, matrix, line, code)
    except FactsError:  # a line that is no report at all is refused: not named either
        return
    assert not named
