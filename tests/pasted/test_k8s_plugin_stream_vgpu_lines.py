"""The kubelet losing a registered device plugin's stream (ListAndWatch ended), Volcano's /
HAMi's vGPU predicate refusing a node: more cards asked for than the node has, or no card with
the memory and cores asked for, and a missing GLIBC version told without the loader's line.
Each line is named by its own entry, a paste holding only it is judged an error (the lost
stream a warning: every plugin restart prints it), the lost stream is the symptom of a cause
named beside it, and the
kubelet's healthy registration lines and Insufficient-resource lines go to their own entries."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, named_lines, warn_or_error

Read = Callable[[str], HostFacts]

_J = "Oct 17 12:05:33 ip-10-0-0-1.ec2.internal kubelet[1655]: "


@pytest.mark.parametrize(
    "line",
    [
        _J + 'E1017 12:05:33.335816    1655 client.go:90] "ListAndWatch ended unexpectedly for '
        'device plugin" err="rpc error: code = Unavailable desc = error reading from server: EOF" '
        'resource="nvidia.com/gpu"',
        "E0312 08:01:02.123456    2345 endpoint.go:106] listAndWatch ended unexpectedly for "
        "device plugin nvidia.com/gpu with error rpc error: code = Unavailable desc = transport "
        "is closing",
    ],
)
def test_the_kubelet_losing_a_device_plugins_stream_is_named(
    read: Read, matrix: Matrix, line: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "kubelet-device-plugin-stream-ended")
    # alone, a warning: the kubelet prints it on every plugin restart too
    assert found.severity is Severity.WARN
    assert "one plugin per resource" in found.fix


def test_the_lost_stream_is_the_symptom_of_the_plugins_own_error(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "E0519 11:02:49.799506       1 factory.go:112] Incompatible platform detected\n"
        "I0519 11:02:49.799461       1 factory.go:104] Detected non-NVML platform: could not load "
        "NVML library: libnvidia-ml.so.1: cannot open shared object file: No such file or "
        "directory\n"
        + _J
        + 'E1017 12:05:33.335816    1655 client.go:90] "ListAndWatch ended unexpectedly for '
        'device plugin" err="rpc error: code = Canceled desc = grpc: the client connection is '
        'closing" resource="nvidia.com/gpu"\n'
    )
    (found,) = named_lines(read, matrix, text, "kubelet-device-plugin-stream-ended")
    assert found.severity is Severity.INFO


def test_the_kubelets_healthy_plugin_lines_are_not_named(read: Read, matrix: Matrix) -> None:
    text = (
        _J + 'I1017 12:05:33.325133    1655 server.go:144] "Got registration request from device '
        'plugin with resource" resourceName="nvidia.com/gpu"\n'
        + _J
        + 'I1017 12:05:33.734727    1655 client.go:91] "State pushed for device plugin" '
        'resource="nvidia.com/gpu" resourceCapacity=1\n'
    )
    findings = findings_of(read, matrix, text)
    assert not error_lines(findings, "kubelet-device-plugin-stream-ended")
    assert warn_or_error(findings) == []


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        (
            "Warning  FailedScheduling  77s   volcano  0/1 nodes are unavailable: 1 no enough "
            "gpu cards on node .",
            "vgpu-scheduler-too-few-cards",
            "more GPU cards than the node has",
        ),
        (
            "Warning  FailedScheduling  12s   volcano  0/2 nodes are unavailable: 2 not enough "
            "gpu fitted on this node.",
            "vgpu-scheduler-no-card-fits",
            "free memory and cores",
        ),
    ],
)
def test_the_vgpu_predicates_refusals_are_named(
    read: Read, matrix: Matrix, line: str, code: str, words: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", code)
    assert found.severity is Severity.ERROR
    assert words in found.detail


def test_an_insufficient_vgpu_resource_stays_with_its_own_entry(read: Read, matrix: Matrix) -> None:
    # the same event naming an Insufficient resource too is the generic entry's (first in file)
    line = (
        "Warning  FailedScheduling  36m   volcano  0/3 nodes are unavailable: 1 no enough gpu "
        "cards on node node-1, 2 Insufficient volcano.sh/vgpu-number."
    )
    findings = findings_of(read, matrix, line + "\n")
    assert error_lines(findings, "k8s-insufficient-gpu")
    assert not error_lines(findings, "vgpu-scheduler-too-few-cards")


@pytest.mark.parametrize(
    ("line", "need"),
    [
        (
            "nvidia operator validator & nvidia cuda validator pods are crashing with GLIBC_2.27 "
            "not found.",
            "2.27",
        ),
        ("the toolkit container keeps failing: GLIBC_2.34 is missing", "2.34"),
    ],
)
def test_a_glibc_version_missing_told_in_prose_is_named(
    read: Read, matrix: Matrix, line: str, need: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "glibc-version-missing")
    assert found.severity is Severity.ERROR
    assert f"GLIBC_{need}" in found.detail


def test_the_loaders_own_glibc_lines_and_a_glibc_found_stay_elsewhere(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by "
        "/home/u/.local/lib/python3.9/site-packages/jaxlib/xla_extension.so)\n"
        "ldd (GNU libc) 2.35: GLIBC_2.34 found\n"
    )
    findings = findings_of(read, matrix, text)
    assert error_lines(findings, "glibc-too-old")
    assert not error_lines(findings, "glibc-version-missing")
