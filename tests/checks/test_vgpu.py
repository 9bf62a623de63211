"""The vGPU checks beyond the recorded hosts: expiry close to the snapshot, unreported licences,
the release rule of vGPU Manager and guest (same, one newer, previous LTS), and "compare by
hand" when the manager or a release is not known."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts, VgpuLicense
from gpudoctor.findings import Severity
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import DriverBranch, Matrix
from gpudoctor.matrix.queries import driver_branch_of, vgpu_manager_runs_guest
from tests.support.hosts import host

MATRIX = load_matrix()


def vgpu(facts: HostFacts, code: str, matrix: Matrix = MATRIX) -> list[tuple[Severity, str]]:
    run = run_checks(facts, matrix)
    return [(f.severity, f.title) for f in run.findings if f.code == code]


def with_licence(facts: HostFacts, licence: VgpuLicense | None) -> HostFacts:
    gpus = tuple(replace(g, vgpu_license=licence) for g in facts.nvml.gpus)
    return replace(facts, nvml=replace(facts.nvml, gpus=gpus))


def test_a_lease_expiring_within_three_days_of_the_snapshot_warns() -> None:
    facts = with_licence(host("vgpu-guest"), VgpuLicense("licensed", "vCS", "2025-06-04T09:00:00Z"))
    ((severity, title),) = vgpu(facts, "vgpu-license")
    assert severity is Severity.WARN
    assert "within 3 days" in title
    later = with_licence(facts, VgpuLicense("licensed", "vCS", "2025-06-10T09:00:00Z"))
    assert vgpu(later, "vgpu-license")[0][0] is Severity.OK


@pytest.mark.parametrize(
    ("state", "severity"),
    [
        ("unlicensed", Severity.ERROR),
        ("unlicensed_unrestricted", Severity.ERROR),
        ("unlicensed_restricted", Severity.ERROR),
        ("unknown", Severity.UNKNOWN),
    ],
)
def test_licence_states(state: str, severity: Severity) -> None:
    facts = with_licence(host("vgpu-guest"), VgpuLicense(state, "vCS"))
    assert vgpu(facts, "vgpu-license")[0][0] is severity


def test_a_guest_whose_licence_is_not_reported_is_unknown_not_ok() -> None:
    facts = with_licence(host("vgpu-guest"), None)
    ((severity, title),) = vgpu(facts, "vgpu-license")
    assert (severity, title) == (Severity.UNKNOWN, "vGPU licence state not reported")


def test_a_missing_token_warns() -> None:
    facts = host("vgpu-guest")
    client = replace(facts.platform.vgpu_client, tokens=0)
    facts = replace(facts, platform=replace(facts.platform, vgpu_client=client))
    ((severity, title),) = vgpu(facts, "vgpu-license-client")
    assert severity is Severity.WARN
    assert "ClientConfigToken" in title


def rows(matrix: Matrix) -> dict[int, DriverBranch]:
    return {b.vgpu_release: b for b in matrix.driver_branches if b.vgpu_release is not None}


def branch(number: str, release: int, designation: str) -> DriverBranch:
    return DriverBranch(
        branch=number,
        designation=designation,
        source="test",
        sources=(),
        verified=True,
        notes="",
        evidence="",
        vgpu_release=release,
        vgpu_source="test",
    )


def test_the_release_rule() -> None:
    lts16, pb17 = branch("535", 16, "long-term support"), branch("550", 17, "production")
    pb18, lts19 = branch("570", 18, "production"), branch("580", 19, "long-term support")
    matrix = replace(MATRIX, driver_branches=(lts16, pb17, pb18, lts19))
    runs = vgpu_manager_runs_guest
    assert runs(matrix, lts19, lts19)  # the same release
    assert runs(matrix, pb18, pb17)  # the manager one major branch newer
    assert runs(matrix, lts19, pb18)
    assert runs(matrix, lts19, lts16)  # an LTS manager with the previous LTS guest
    assert not runs(matrix, pb18, lts16)  # two branches apart, not LTS to LTS
    assert not runs(matrix, lts16, pb17)  # a guest newer than its manager
    lts22 = branch("620", 22, "long-term support")
    wider = replace(matrix, driver_branches=(*matrix.driver_branches, lts22))
    assert runs(wider, lts22, lts19)
    assert not runs(wider, lts22, lts16)  # R580 is the previous LTS of R620, not R535


def test_the_matrix_rows_hold_sourced_releases() -> None:
    found = rows(MATRIX)
    assert found[16].branch == "535"
    assert found[19].branch == "580"
    assert all(b.vgpu_source for b in found.values())
    assert driver_branch_of(MATRIX, "580.65.06") is found[19]
    assert driver_branch_of(MATRIX, "garbage") is None


def test_without_the_managers_version_the_finding_says_what_to_compare() -> None:
    facts = host("vgpu-guest-expired")
    devices = tuple(replace(d, vgpu_host_driver_version=None) for d in facts.kernel.pci_devices)
    facts = replace(facts, kernel=replace(facts.kernel, pci_devices=devices))
    run = run_checks(facts, MATRIX)
    (release,) = [f for f in run.findings if f.code == "vgpu-release"]
    assert release.severity is Severity.INFO
    assert "vGPU 16 (R535)" in release.title
    assert "compare by hand" in release.fix
    assert "previous long-term support branch" in release.fix
