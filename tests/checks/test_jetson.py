"""Jetson (L4T) recognised from /etc/nv_tegra_release, live and in a paste; PyPI's SBSA CUDA
wheels named as the wrong build there, NVIDIA's JetPack build left alone."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.checks.base import Intent
from gpudoctor.checks.jetson import check_jetson_wheels
from gpudoctor.facts import BundledLib, FrameworkFacts, HostFacts, PlatformFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.probes.platform import l4t_release, probe_platform

TEGRA = "# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic, EABI: aarch64\n"


def _jetson(*frameworks: FrameworkFacts, release: str | None = "36.3.0") -> HostFacts:
    return HostFacts(platform=PlatformFacts(l4t_release=release), frameworks=frameworks)


def _severities(facts: HostFacts, matrix: Matrix) -> list[Severity]:
    return [f.severity for f in check_jetson_wheels(facts, matrix, Intent())]


def test_the_probe_reads_the_l4t_release(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/nv_tegra_release").write_text(TEGRA, encoding="utf-8")
    facts, _ = probe_platform(tmp_path, {})
    assert facts.l4t_release == "36.3.0"
    assert l4t_release("# R35 (release), REVISION: 4.1, GCID: 33958178") == "35.4.1"
    assert l4t_release("not a tegra file") is None
    (tmp_path / "etc/nv_tegra_release").unlink()
    assert probe_platform(tmp_path, {})[0].l4t_release is None


@pytest.mark.parametrize(
    ("framework", "severity"),
    [
        (
            FrameworkFacts(
                "torch", "2.5.1", cuda="12.4", cpu_only=False,
                bundled=(BundledLib("nvidia-cublas-cu12", "12.4.5.8"),),
            ),
            Severity.ERROR,
        ),
        (FrameworkFacts("torch", "2.5.1+cu124", cuda="12.4", cpu_only=False), Severity.ERROR),
        (FrameworkFacts("torch", "2.5.1", cpu_only=True), Severity.WARN),
        # a plain release the [[wheel]] rows do not list, between two CPU-only PyPI rows:
        # probably PyPI's aarch64 build
        (FrameworkFacts("torch", "2.1.0"), Severity.WARN),
        (FrameworkFacts("tensorflow", "2.12.0"), Severity.WARN),
        # NVIDIA's JetPack build: CUDA from JetPack, no nvidia-* wheels
        (
            FrameworkFacts("torch", "2.3.0a0+40ec155e58.nv24.03", cuda="12.2", cpu_only=False),
            Severity.OK,
        ),
    ],
)  # fmt: skip
def test_builds_on_a_jetson(framework: FrameworkFacts, severity: Severity, matrix: Matrix) -> None:
    assert _severities(_jetson(framework), matrix) == [severity]


def test_not_a_jetson_is_not_judged(matrix: Matrix) -> None:
    wheel = FrameworkFacts("torch", "2.5.1+cu124", cuda="12.4", cpu_only=False)
    assert _severities(_jetson(wheel, release=None), matrix) == [Severity.NA]


def test_a_pasted_tegra_release_is_a_jetson(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report

    facts = read_report(
        "$ cat /etc/nv_tegra_release\n" + TEGRA + "torch==2.5.1\nnvidia-cublas-cu12==12.4.5.8\n",
        "p.txt",
        matrix.architectures,
    )
    assert facts.platform.l4t_release == "36.3.0"
    assert facts.platform.machine == "aarch64"
    (torch,) = facts.frameworks
    found = check_jetson_wheels(replace(facts, frameworks=(torch,)), matrix, Intent())
    assert [f.severity for f in found] == [Severity.ERROR]


@pytest.mark.parametrize(
    "name", ["NVIDIA Tegra X1", "NVIDIA Tegra X2", "Orin", "Xavier", "gv11b", "ga10b"]
)
def test_a_jetson_is_known_by_the_name_cuda_gives_its_gpu(name: str, matrix: Matrix) -> None:
    from gpudoctor.facts import GpuFacts, NvmlFacts

    facts = HostFacts(
        nvml=NvmlFacts(gpus=(GpuFacts(index=0, name=name),)),
        frameworks=(FrameworkFacts("torch", "2.1.0"),),
    )
    (found,) = check_jetson_wheels(facts, matrix, Intent())
    assert found.severity == Severity.WARN
    assert "probably PyPI's aarch64 build" in found.title


def test_a_plain_version_that_sees_cuda_is_no_pypi_build(matrix: Matrix) -> None:
    from gpudoctor.facts import DeepFrameworkFacts

    torch = FrameworkFacts("torch", "2.3.0")  # a Jetson AI Lab JetPack 6 wheel's version
    facts = _jetson(torch)
    assert _severities(facts, matrix) == [Severity.WARN]
    seen = replace(facts, deep=(DeepFrameworkFacts(name="torch", cuda_available=True),))
    assert _severities(seen, matrix) == [Severity.OK]
