"""Attack test: a snapshot repeating a GPU index (or a MIG device's, or an NVLink's, within its
GPU) is refused where snapshots are loaded, so no output (the Prometheus text above all, whose
scrapers reject duplicate series) ever shows two things as one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.errors import FactsError
from gpudoctor.facts_json import dumps, loads
from tests.support.hosts import HOSTS_DIR

MULTI = next(
    p
    for p in sorted(HOSTS_DIR.glob("*.json"))
    if len(json.loads(p.read_text())["nvml"]["gpus"]) > 1
)


def _edited(change: str) -> str:
    data = json.loads(MULTI.read_text())
    gpus = data["nvml"]["gpus"]
    if change == "gpu-index":
        gpus[1]["index"] = gpus[0]["index"]
    elif change == "mig":
        gpus[0]["mig_devices"] = [{"index": 0}, {"index": 0}]
    else:
        gpus[0]["nvlinks"] = [{"link": 3}, {"link": 3}]
    return json.dumps(data)


@pytest.mark.parametrize("change", ["gpu-index", "mig", "nvlink"])
def test_a_repeated_index_is_refused_at_load(change: str) -> None:
    with pytest.raises(FactsError, match="appears twice"):
        loads(_edited(change), "host.json")


@pytest.mark.parametrize("fmt", ["prometheus", "json", "text"])
def test_a_repeated_gpu_index_is_exit_2_in_every_format(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = tmp_path / "host.json"
    snapshot.write_text(_edited("gpu-index"))
    assert run(["check", "--from", str(snapshot), "--format", fmt]) == 2
    captured = capsys.readouterr()
    assert "GPU index 0 appears twice" in captured.err
    assert "gpudoctor_gpu" not in captured.out


def test_a_snapshot_with_distinct_indexes_still_loads() -> None:
    facts = loads(MULTI.read_text(), str(MULTI))
    assert loads(dumps(facts)).nvml.gpus == facts.nvml.gpus


AMD = HOSTS_DIR / "amd-mi300x-8x.json"


@pytest.mark.parametrize("section", ["kfd_nodes", "pci_gpus"])
def test_a_repeated_amd_gpu_is_refused_at_load(section: str) -> None:
    """A repeated KFD GPU node was counted twice: `--require 'amd_gpus>=9'` passed on 8 GPUs."""
    data = json.loads(AMD.read_text())
    entries = data["amd"][section]
    gpu = next(e for e in entries if e.get("gfx_target_version", 1))  # not a CPU node
    entries.append(gpu)
    with pytest.raises(FactsError, match="appears twice"):
        loads(json.dumps(data), "host.json")


def test_an_amd_snapshot_with_distinct_gpus_still_loads() -> None:
    facts = loads(AMD.read_text(), str(AMD))
    assert len(facts.amd.gpu_nodes) == 8
