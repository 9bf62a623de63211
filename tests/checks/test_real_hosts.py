"""Snapshots recorded on real machines (tests/data/real-hosts/) replay anywhere: they load, every
check runs on them without a crash, and the findings that define each host are there. Reports
pasted from the same host (`nvidia-smi`, collect_env) give the answers its snapshot gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.cli.app import run
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import load
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

REAL = Path(__file__).resolve().parents[1] / "data" / "real-hosts"

# (code, severity, subject) that each recorded host must produce.
EXPECTED = {
    "debian12-vm-no-gpu-cuda13-toolkit": {
        ("no-nvidia-gpu", Severity.INFO, ""),
        ("nvml-library-missing", Severity.NA, ""),
        ("nvcc-driver-cuda", Severity.NA, "/usr/local/cuda-13.0"),
    },
    # One H200 passed through to a Firecracker VM, Ubuntu 24.04 container, open kernel module
    # 580.159.04, torch 2.11.0+cu130 and jax 0.11.2 with their nvidia-* wheels, `--deep`: a
    # healthy host. Its system cuDNN 9.14 sits in the loader cache, yet torch loaded its wheel's
    # 9.19 (the deep probe's answer): a note, not a warning.
    "h200-vm-torch-jax": {
        ("driver-version", Severity.OK, ""),
        ("driver-library-mismatch", Severity.OK, ""),
        ("gpu-identity", Severity.OK, "GPU 0"),
        ("gpu-virtualization", Severity.INFO, "GPU 0"),
        ("framework-arch", Severity.OK, "torch on GPU 0"),
        ("framework-cudnn", Severity.OK, "torch"),
        ("framework-kernel", Severity.OK, "torch"),
        ("framework-kernel", Severity.OK, "jax"),
        ("library-shadowing", Severity.INFO, "torch"),
        ("library-shadowing", Severity.INFO, "jax"),
        ("nccl-library", Severity.OK, ""),
    },
}
H200 = REAL / "h200-vm-torch-jax.json"


def test_every_recorded_host_has_expectations() -> None:
    assert {p.stem for p in REAL.glob("*.json")} == set(EXPECTED)
    # each paste beside a snapshot is named after it: HOST.KIND.txt
    assert {p.name.split(".")[0] for p in REAL.glob("*.txt")} <= set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_host_replays(name: str, matrix: Matrix) -> None:
    facts = load(REAL / f"{name}.json")
    assert facts.redacted
    assert facts.platform.hostname is None
    run_ = run_checks(facts, matrix, Intent())
    got = {(f.code, f.severity, f.subject) for f in run_.findings}
    assert EXPECTED[name] <= got, sorted(EXPECTED[name] - got)
    assert not [f for f in run_.findings if f.code == "check-crashed"]


def test_no_gpu_host_fails_a_gpu_requirement(capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "debian12-vm-no-gpu-cuda13-toolkit.json"
    assert run(["check", "--from", str(path)]) == 0  # nothing is wrong with a host with no GPU
    assert run(["check", "--from", str(path), "--require", "gpus>=1"]) == 1
    assert "requirement-gpus" in capsys.readouterr().out


def test_a_healthy_gpu_host_passes_strict(capsys: pytest.CaptureFixture[str]) -> None:
    # --strict fails on warnings and unknowns too: a working H200 has none of either
    assert run(["check", "--from", str(H200), "--strict"]) == 0, capsys.readouterr().out


def _verdicts(facts: HostFacts, matrix: Matrix, codes: set[str]) -> set[tuple[str, str, str]]:
    found = run_checks(facts, matrix, Intent()).findings
    return {(f.code, f.severity.value, f.subject) for f in found if f.code in codes}


def _paste(kind: str, matrix: Matrix) -> HostFacts:
    path = H200.with_name(f"{H200.stem}.{kind}.txt")
    return read_report(path.read_text(encoding="utf-8"), path.name, matrix.architectures)


def test_nvidia_smi_of_the_host_reads_as_its_snapshot(matrix: Matrix) -> None:
    snap, pasted = load(H200), _paste("nvidia-smi", matrix)
    assert pasted.nvml.driver_version == snap.nvml.driver_version == "580.159.04"
    assert pasted.nvml.cuda_driver_version == snap.nvml.cuda_driver_version
    (ours,), (theirs,) = snap.nvml.gpus, pasted.nvml.gpus
    for field in ("name", "compute_capability", "memory_total_bytes", "persistence_mode"):
        assert getattr(theirs, field) == getattr(ours, field), field
    codes = {
        "driver-version",
        "gpu-identity",
        "mig-mode",
        "mig-mode-pending",
        "ecc-mode-pending",
        "ecc-errors",
        "row-remap-failure",
        "persistence-mode",
        "pcie-link-width",
        "pcie-link-gen",
        "gpu-virtualization",
        "precision-modes",
    }
    assert _verdicts(pasted, matrix, codes) == _verdicts(snap, matrix, codes)
    # nvidia-smi -q's field names ("MIG Mode", "vGPU Heterogeneous Mode : N/A") are fields its
    # parser read, not a text that talks about MIG or vGPU
    assert pasted.report is not None
    assert not [n for n in pasted.report.notes if "mentions" in n], pasted.report.notes
    # what a paste does not show is "not in the report", never a snapshot's older writer
    titles = [f.title for f in run_checks(pasted, matrix, Intent()).findings]
    assert "not in the report" in titles
    assert not [t for t in titles if "older gpudoctor" in t]


def test_collect_env_of_the_host_reads_as_its_snapshot(matrix: Matrix) -> None:
    snap, pasted = load(H200), _paste("collect-env", matrix)
    assert pasted.nvml.driver_version == snap.nvml.driver_version
    torch = [fw for fw in pasted.frameworks if fw.name == "torch"]
    (ours,) = [fw for fw in snap.frameworks if fw.name == "torch"]
    assert [(fw.version.split("+")[0], fw.cuda) for fw in torch] == [(ours.version, ours.cuda)]
    codes = {"framework-arch", "framework-cpu-only", "framework-cudnn", "framework-driver-cuda"}
    torch_only = {v for v in _verdicts(snap, matrix, codes) if v[2].startswith("torch")}
    assert _verdicts(pasted, matrix, codes) == torch_only
