"""The GPU Operator's driver container (gpu-driver-container's nvidia-driver script) and its
validator (cmd/nvidia-validator): their failure lines, as `kubectl logs` prints them, each named
by its own entry with the line's numbers in cause and fix; their progress lines are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]
NETWORKS = "Ensure that the cluster can access the proper networks."


def _codes(read: Read, text: str) -> list[str]:
    report = read(text).report
    assert report is not None
    return [e.code for e in report.errors]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            f"ERROR: Failed to update package cache.  {NETWORKS}",
            "gpu-operator-driver-package-cache",
        ),
        (
            f"FATAL: failed to reach RHEL package repositories.  {NETWORKS}",
            "gpu-operator-driver-package-cache",
        ),
        ("Could not locate Linux kernel version string", "gpu-operator-driver-kernel-string"),
        ("Unable to resolve RHEL version from kernel version", "gpu-operator-driver-rhel-version"),
        (
            "FATAL: failed to install elfutils-libel-devel. RHEL entitlement may be improperly "
            "deployed.",
            "gpu-operator-driver-rhel-entitlement",
        ),
        (
            'time="2024-05-02T10:11:12Z" level=info msg="Error: error validating plugin '
            'installation: GPU resources are not discovered by the node"',
            "gpu-operator-plugin-validation",
        ),
    ],
)
def test_the_driver_and_validator_lines_are_named(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    # as `kubectl logs --prefix` prints it: the pod and container before the line
    pasted = f"[pod/nvidia-driver-daemonset-x7p5r/nvidia-driver-ctr] {line}\n"
    assert _codes(read, pasted)[:1] == [code]
    (found,) = error_lines(findings_of(read, matrix, pasted), code)
    assert found.severity is Severity.ERROR


def test_the_releasevers_and_the_pod_are_carried(read: Read, matrix: Matrix) -> None:
    line = (
        "FATAL: failed to update the dnf metadata cache after multiple attempts with "
        "releasevers 9.2, 9\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "gpu-operator-driver-dnf-releasever")
    assert "release 9.2" in found.detail
    assert "RHEL 9" in found.detail
    assert "RHEL 9.2" in found.fix
    line = (
        'time="2024-05-02T10:11:12Z" level=info msg="Error: error validating cuda workload: gave '
        'up waiting for pod nvidia-cuda-validator-8xk2p to be available"\n'
    )
    (pod,) = error_lines(findings_of(read, matrix, line), "gpu-operator-validation-pod-timeout")
    assert "nvidia-cuda-validator-8xk2p" in pod.detail
    assert "kubectl describe pod nvidia-cuda-validator-8xk2p -n gpu-operator" in pod.fix


def test_near_miss_progress_lines_are_not_failures(read: Read, matrix: Matrix) -> None:
    """The script's and validator's progress lines next to the failures: nothing to name."""
    progress = (
        "Updating the package cache...\n"
        "Resolving Linux kernel version...\n"
        "Proceeding with Linux kernel version 5.15.0-105-generic\n"
        "kernel requires gcc version: 'gcc-11.4.1', current gcc version is "
        "'gcc-11.4.1-3.el9.x86_64'\n"
        'time="2024-05-02T10:11:12Z" level=info msg="GPU resources are not yet discovered by '
        'the node, retry: 3"\n'
        'time="2024-05-02T10:11:12Z" level=info msg="pod nvidia-cuda-validator-8xk2p have run '
        'successfully"\n'
        "Could not resolve Linux kernel version\n"  # the kernel-packages entry's, not these
    )
    assert _codes(read, progress) == ["gpu-operator-kernel-packages"]
    findings = findings_of(read, matrix, progress)
    assert [code for code, _ in warn_or_error(findings)] == ["report-error"]
