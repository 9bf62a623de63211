"""Manual (`pytest -m manual`): the deep probe against a real CPU-only torch.

Uses the interpreter of /tmp/bench-torch-venv (torch 2.13.0+cpu, made for bench/); skipped
where it does not exist. The frameworks probe reads that venv's site-packages, the deep probe
imports torch with its interpreter (about 2 s), and the checks call it a CPU build.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import GpuFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.load import load_matrix
from gpudoctor.probes import collect_facts
from gpudoctor.probes.runner import CommandResult

pytestmark = pytest.mark.manual
VENV = Path("/tmp/bench-torch-venv")
CODES = frozenset({"framework-import", "framework-cuda-available", "framework-kernel"})


def _no_commands(argv, *, timeout_s: float = 5.0) -> CommandResult:  # type: ignore[no-untyped-def]
    return CommandResult(tuple(argv), None, error="not-found")


def test_real_cpu_torch(tmp_path: Path) -> None:
    python = VENV / "bin" / "python"
    sites = sorted(VENV.glob("lib/python*/site-packages"))
    if not python.exists() or not sites:
        pytest.skip(f"no torch venv at {VENV} (bench/README.md says how to make one)")
    facts = collect_facts(
        root=tmp_path,
        env={},
        runner=_no_commands,
        site_paths=sites,
        include_docker=False,
        include_nvml=False,
        deep=True,
        python=str(python),
    )
    (deep,) = facts.deep
    assert (deep.name, deep.outcome, deep.import_ok) == ("torch", "ok", True)
    assert deep.version is not None
    assert deep.version.endswith("+cpu")
    assert (deep.cuda, deep.cuda_available, deep.device_count, deep.kernel_ok) == (
        None,
        False,
        0,
        None,
    )
    assert deep.import_seconds is not None
    assert 0 < deep.import_seconds < 60
    found = {f.code: f for f in run_checks(facts, load_matrix(), only=CODES).findings}
    assert found["framework-import"].severity is Severity.OK
    assert found["framework-cuda-available"].severity is Severity.NA
    assert "a CPU-only build" in found["framework-cuda-available"].title
    assert found["framework-kernel"].severity is Severity.NA
    # The same torch on a host with a GPU: still n/a here; framework-cpu-only is the error.
    gpu = GpuFacts(index=0, name="NVIDIA H100 80GB HBM3", compute_capability="9.0")
    nvml = dataclasses.replace(facts.nvml, status="ok", driver_version="570.124.06", gpus=(gpu,))
    on_gpu = run_checks(dataclasses.replace(facts, nvml=nvml), load_matrix(), only=CODES)
    assert [f.severity for f in on_gpu.findings] == [Severity.OK, Severity.NA, Severity.NA]
    both = CODES | {"framework-cpu-only"}
    cpu_only = run_checks(dataclasses.replace(facts, nvml=nvml), load_matrix(), only=both)
    assert [f.code for f in cpu_only.findings if f.severity is Severity.ERROR] == [
        "framework-cpu-only"
    ]
