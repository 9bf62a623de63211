"""torch's torchvision and torchaudio against torch's release (the matrix's pair of each
[[pytorch]] release) and its CUDA major (the local tags): from an installed host's facts and
from a pasted pip list."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks.base import Intent
from gpudoctor.checks.companions import check_framework_companions
from gpudoctor.facts import Companion, FrameworkFacts, HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.hosts import host


def _torch(version: str, *companions: tuple[str, str, str]) -> HostFacts:
    fw = FrameworkFacts(
        name="torch",
        version=version,
        cuda="12.1" if "+cu121" in version else None,
        cpu_only="+cpu" in version,
        companions=tuple(Companion(n, v, local) for n, v, local in companions),
    )
    return replace(host("a100-8x-r535"), frameworks=(fw,))


def _judge(facts: HostFacts, matrix: Matrix) -> Finding:
    (found,) = check_framework_companions(facts, matrix, Intent())
    return found


@pytest.mark.parametrize(
    ("torch", "companions", "severity"),
    [
        # one release, one build: torchvision 0.18 and torchaudio 2.3 are torch 2.3's
        (
            "2.3.1+cu121",
            [("torchvision", "0.18.1", "cu121"), ("torchaudio", "2.3.1", "cu121")],
            Severity.OK,
        ),
        # a patch release of the pair's series is of the same release
        ("2.3.1", [("torchvision", "0.18.0", ""), ("torchaudio", "2.3.0", "")], Severity.OK),
        # torchvision of torch 2.0 beside torch 2.2: its operators do not load
        ("2.2.0+cu121", [("torchvision", "0.15.2", "cu121")], Severity.ERROR),
        # torchaudio of the previous release
        ("2.5.1", [("torchaudio", "2.4.0", "")], Severity.ERROR),
        # the same release for another CUDA major: torchvision refuses it at import
        ("2.3.1+cu121", [("torchvision", "0.18.1", "cu118")], Severity.ERROR),
        # another CUDA minor of the same major: torchvision compares majors only
        ("2.3.1+cu121", [("torchvision", "0.18.1", "cu124")], Severity.OK),
        # a CPU-only torchvision beside a CUDA torch: no GPU operators
        ("2.3.1+cu121", [("torchvision", "0.18.1", "cpu")], Severity.WARN),
        # a nightly's companions are numbered for the next release: not held to a pair
        ("2.6.0.dev20241112+cu124", [("torchvision", "0.20.0.dev20241112", "cu124")], Severity.OK),
    ],
)
def test_companions_against_torchs_release_and_cuda(
    torch: str, companions: list[tuple[str, str, str]], severity: Severity, matrix: Matrix
) -> None:
    assert _judge(_torch(torch, *companions), matrix).severity is severity


def test_the_finding_names_both_releases_and_the_command(matrix: Matrix) -> None:
    found = _judge(
        _torch("2.2.0+cu121", ("torchvision", "0.15.2", "cu117"), ("torchaudio", "2.2.0", "cu121")),
        matrix,
    )
    assert "torchvision 0.15.2+cu117 is not of torch 2.2's release" in found.title
    assert "0.15.2 is torch 2.0's" in found.title
    assert "CUDA 11 (cu117), torch for CUDA 12 (cu121)" in found.title
    # the fix installs the release's three packages from the torch build's own index
    assert "torchvision==0.17." in found.fix
    assert "torchaudio==2.2." in found.fix
    assert "download.pytorch.org/whl/cu121" in found.fix


def test_no_companions_is_not_judged(matrix: Matrix) -> None:
    assert _judge(_torch("2.3.1+cu121"), matrix).severity is Severity.NA


def test_a_pasted_pip_list_is_judged(matrix: Matrix) -> None:
    facts = read_report(
        "torch                    2.2.0+cu121\n"
        "torchvision              0.15.2+cu117\n"
        "torchaudio               2.2.0+cu121\n",
        "pip.txt",
        matrix.architectures,
    )
    found = _judge(facts, matrix)
    assert found.severity is Severity.ERROR
    assert "torchvision 0.15.2+cu117" in found.title
    assert "torchaudio" not in found.title  # the matched one is not named as wrong
