"""aarch64 GPU hosts (GH200, DGX Spark) against the x86 host: builds are judged on the host's
machine, the CPU-only PyPI wheel trap is explained, and the CPU/NUMA facts are shown."""

from __future__ import annotations

import re

from gpudoctor.checks import run_checks
from gpudoctor.checks.base import Intent
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.platforms import available_on
from tests.support.hosts import host

_FIX = re.compile(r"pip install torch==(\S+)(?: [a-z]+==\S+)*(?: --index-url (\S+))?")


def _find(findings: list[Finding], code: str) -> Finding:
    return next(f for f in findings if f.code == code)


def _findings(name: str, matrix: Matrix, intent: Intent | None = None) -> list[Finding]:
    return list(run_checks(host(name), matrix, intent or Intent()).findings)


def _named_build_exists(matrix: Matrix, fix: str, machine: str) -> None:
    """The pip command names a torch version whose wheel exists for `machine` on that index."""
    match = _FIX.search(fix)
    assert match, fix
    version, index = match.group(1), match.group(2)
    release = next(r for r in matrix.pytorch if r.version == version)
    assert any(
        available_on(
            matrix, "pytorch", version, v.cuda, machine=machine, row_index_url=v.index_url
        ).index_url
        == index
        and available_on(
            matrix, "pytorch", version, v.cuda, machine=machine, row_index_url=v.index_url
        ).ok
        for v in release.variants
    ), fix


def test_gh200_cpu_wheel_is_explained_and_the_fix_exists_for_aarch64(matrix: Matrix) -> None:
    f = _find(_findings("gh200-torch-cpu-wheel", matrix), "framework-cpu-only")
    assert f.severity is Severity.ERROR
    assert f.detail
    assert "PyPI's aarch64 wheel of torch 2.2.2 carries no CUDA" in f.detail
    assert "from 2.11.0 on (CUDA 13.0)" in f.detail
    assert f.fix
    assert "cu121" not in f.fix
    _named_build_exists(matrix, f.fix, "aarch64")


def test_the_same_cpu_build_on_x86_gets_no_aarch64_story(matrix: Matrix) -> None:
    f = _find(_findings("cpu-torch-on-gpu", matrix), "framework-cpu-only")
    assert f.severity is Severity.ERROR
    assert "aarch64" not in (f.detail or "")
    assert f.fix
    assert "--index-url https://download.pytorch.org/whl/" in f.fix


def test_what_runs_here_on_aarch64_never_names_an_x86_only_build(matrix: Matrix) -> None:
    for name in ("gh200-torch-cpu-wheel", "dgx-spark"):
        verdict = _find(_findings(name, matrix, Intent(framework="pytorch")), "intent-verdict")
        if verdict.severity in (Severity.OK, Severity.INFO):
            assert verdict.fix
            _named_build_exists(matrix, verdict.fix, "aarch64")
        # Asking for a release PyPI serves CPU-only on aarch64 (and no sbsa row is known for)
        # says why it will not run.
        old = Intent(framework="pytorch", framework_version="2.2")
        no = _find(_findings(name, matrix, old), "intent-verdict")
        assert no.severity is Severity.ERROR
        assert no.detail
        assert "no aarch64 wheel of pytorch 2.2.2" in no.detail


def test_dgx_spark_runs_pypi_torch_211(matrix: Matrix) -> None:
    findings = _findings("dgx-spark", matrix, Intent(framework="pytorch", framework_version="2.11"))
    assert _find(findings, "framework-cpu-only").severity is Severity.OK
    verdict = _find(findings, "intent-verdict")
    assert verdict.severity is Severity.OK, verdict.title
    # PyPI: its aarch64 wheel brings CUDA 13.0; the companions of the release come with it
    assert verdict.fix == "pip install torch==2.11.0 torchvision==0.26.0 torchaudio==2.11.0"
    newest = _find(findings, "intent-newest-row")
    assert newest.fix
    assert "--index-url" not in newest.fix


def test_cpu_memory_shows_grace_and_coherent_gpu_memory(matrix: Matrix) -> None:
    gh = _find(_findings("gh200-torch-cpu-wheel", matrix), "cpu-memory")
    assert gh.title.startswith("Neoverse-V2 (aarch64), 2 NUMA nodes")
    assert "GPU memory is coherent with the CPU" in gh.title
    assert gh.detail
    assert "NUMA node 1 holds memory and no CPUs" in gh.detail
    assert "NVML reports ATS addressing for GPU 0" in gh.detail
    spark = _find(_findings("dgx-spark", matrix), "cpu-memory")
    assert spark.title == "Cortex-X925 + Cortex-A725 (aarch64), 1 NUMA node"
    x86 = _find(_findings("h100-8x-healthy", matrix), "cpu-memory")
    assert "(x86_64)" in x86.title
    assert "coherent" not in x86.title
