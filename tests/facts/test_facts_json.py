"""HostFacts JSON: round trip, the schema-version rules, and errors that name the bad field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpudoctor import facts_json
from gpudoctor.errors import FactsError
from gpudoctor.facts import (
    SCHEMA_VERSION,
    BundledLib,
    Companion,
    FrameworkFacts,
    GpuFacts,
    HostFacts,
    KernelFacts,
    MigDevice,
    NvmlFacts,
    PciDevice,
    ProbeIssue,
    ProbeTiming,
)

HOSTS = Path(__file__).resolve().parents[1] / "data" / "hosts"


def _rich_host() -> HostFacts:
    gpu = GpuFacts(
        index=0,
        name="NVIDIA A100-SXM4-80GB",
        compute_capability="8.0",
        mig_mode_current=True,
        mig_mode_pending=False,
        mig_devices=(MigDevice(index=0, gpu_instance_id=1, memory_total_bytes=10 << 30),),
        clock_event_reasons=("gpu_idle",),
        power_usage_w=61.5,
    )
    return HostFacts(
        tool_version="0.1.0",
        collected_at="2026-11-30T10:00:00Z",
        kernel=KernelFacts(
            pci_devices=(PciDevice(address="0000:3b:00.0", vendor_id="0x10de", kind="gpu"),)
        ),
        nvml=NvmlFacts(status="ok", driver_version="550.90.07", gpus=(gpu,)),
        frameworks=(
            FrameworkFacts(
                name="torch",
                version="2.5.1+cu124",
                cuda="12.4",
                bundled=(BundledLib("nvidia-cudnn-cu12", "9.1.0.70"),),
            ),
        ),
        issues=(ProbeIssue("runtime", "docker_reachable", "docker-unreachable", "no socket"),),
        timings=(ProbeTiming("nvml", 0.005),),
    )


def test_round_trip_is_exact_and_stable() -> None:
    host = _rich_host()
    text = facts_json.dumps(host)
    assert facts_json.loads(text) == host
    assert facts_json.dumps(facts_json.loads(text)) == text  # byte-stable


def test_every_recorded_fixture_loads_and_round_trips() -> None:
    fixtures = sorted(HOSTS.glob("*.json"))
    assert len(fixtures) >= 15
    for path in fixtures:
        host = facts_json.load(path)
        assert facts_json.loads(facts_json.dumps(host)) == host, path.name


def test_an_older_snapshot_without_newer_fields_loads_with_defaults() -> None:
    data = json.loads(facts_json.dumps(_rich_host()))
    del data["timings"]  # a field added after the snapshot was written
    del data["nvml"]["gpus"][0]["power_usage_w"]
    host = facts_json.loads(json.dumps(data))
    assert host.timings == ()
    assert host.nvml.gpus[0].power_usage_w is None
    assert host.nvml.gpus[0].mig_devices[0].memory_total_bytes == 10 << 30


def test_unknown_keys_of_the_same_schema_are_ignored() -> None:
    data = json.loads(facts_json.dumps(_rich_host()))
    data["nvml"]["added_by_a_newer_tool"] = 1
    assert facts_json.loads(json.dumps(data)) == _rich_host()


def test_a_newer_schema_is_refused_with_the_upgrade_hint() -> None:
    with pytest.raises(FactsError, match=r"newer than this gpudoctor") as info:
        facts_json.loads(json.dumps({"schema_version": SCHEMA_VERSION + 1}), "host.json")
    assert "host.json" in info.value.message
    assert info.value.hint is not None
    assert "upgrade" in info.value.hint


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{", "not valid JSON (line 1, column 2"),
        ("[]", "no schema_version"),
        ('{"schema_version": "1"}', "schema_version must be an integer"),
        (
            '{"schema_version": 1, "nvml": {"device_count": true}}',
            "$.nvml.device_count: expected int",
        ),
        ('{"schema_version": 1, "nvml": {"gpus": [{"name": "x"}]}}', "required field 'index'"),
        ('{"schema_version": 1, "frameworks": {}}', "$.frameworks: expected a list"),
    ],
)
def test_bad_snapshots_name_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(FactsError) as info:
        facts_json.loads(text, "bad.json")
    assert fragment in info.value.message
    assert info.value.message.startswith("bad.json")


def test_unreadable_file_is_a_facts_error(tmp_path: Path) -> None:
    with pytest.raises(FactsError, match="cannot read snapshot"):
        facts_json.load(tmp_path / "missing.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(FactsError, match="not a text file"):
        facts_json.load(binary)


def test_snapshot_contract_top_level_keys() -> None:
    """The snapshot's shape is a contract (`snapshot -o` files are read by later versions):
    renaming or dropping a top-level key needs a schema_version bump, so it is pinned here."""
    data = json.loads(facts_json.dumps(HostFacts()))
    assert list(data) == [f.name for f in dataclasses.fields(HostFacts)]
    assert list(data) == [
        "schema_version",
        "tool_version",
        "collected_at",
        "redacted",
        "platform",
        "kernel",
        "nvml",
        "container_runtime",
        "cuda_libs",
        "frameworks",
        "programs",  # added without a schema bump: older snapshots load with ()
        "deep",
        "multigpu",
        "amd",
        "issues",
        "timings",
        "report",
    ]
    assert data["schema_version"] == SCHEMA_VERSION == 2


def test_a_schema_1_snapshot_loads_without_companions() -> None:
    """Schema 2 added FrameworkFacts.companions (torchvision, torchaudio): a schema 1 snapshot
    (every recorded real host) loads, with none recorded."""
    torch = FrameworkFacts(
        name="torch",
        version="2.5.1+cu124",
        cuda="12.4",
        companions=(Companion("torchvision", "0.20.1", "cu124"),),
    )
    data = json.loads(facts_json.dumps(HostFacts(frameworks=(torch,))))
    assert data["frameworks"][0]["companions"] == [
        {"name": "torchvision", "version": "0.20.1", "local": "cu124"}
    ]
    assert facts_json.loads(json.dumps(data)).frameworks[0].companions == torch.companions
    data["schema_version"] = 1
    del data["frameworks"][0]["companions"]
    old = facts_json.loads(json.dumps(data), "old.json")
    assert old.schema_version == 1
    assert old.frameworks[0].companions == ()
    real = sorted((Path(__file__).resolve().parents[1] / "data" / "real-hosts").glob("*.json"))
    older = [p for p in real if json.loads(p.read_text())["schema_version"] == 1]
    assert older  # the CI machine's, recorded before schema 2
    for path in older:
        assert facts_json.load(path).frameworks == ()  # recorded before schema 2: still loads


def test_snapshot_from_before_amd_facts_loads_with_no_amd_gpu() -> None:
    """The AMD section was added without a schema bump: an older snapshot loads and says no AMD
    GPU was seen (the amdsmi binding not even tried)."""
    data = json.loads(facts_json.dumps(HostFacts()))
    del data["amd"]
    facts = facts_json.loads(json.dumps(data))
    assert facts.amd.seen is False
    assert facts.amd.amdsmi_status == "not_run"


def test_snapshot_from_before_multigpu_facts_loads_with_defaults() -> None:
    """NVLink, fabric, pairs and the multigpu section were added without a schema bump: a
    snapshot that lacks them loads, and `multigpu.collected` says they were never read."""
    data = json.loads(facts_json.dumps(HostFacts(nvml=NvmlFacts(gpus=(GpuFacts(index=0),)))))
    del data["multigpu"]
    del data["nvml"]["pairs"]
    for key in ("nvlinks", "fabric"):
        del data["nvml"]["gpus"][0][key]
    facts = facts_json.loads(json.dumps(data))
    assert facts.multigpu.collected is False
    assert facts.nvml.gpus[0].nvlinks == ()
    assert facts.nvml.gpus[0].fabric is None
    assert facts.nvml.pairs == ()


def test_snapshot_from_before_programs_loads_with_defaults() -> None:
    """`programs`, `report.ranges`, the L4T release and the peer-memory clients were added
    without a schema bump: a snapshot that lacks them loads with their defaults."""
    data = json.loads(facts_json.dumps(HostFacts()))
    del data["programs"]
    del data["platform"]["l4t_release"]
    del data["kernel"]["peer_memory_clients"]
    facts = facts_json.loads(json.dumps(data), "old.json")
    assert facts.programs == ()
    assert facts.platform.l4t_release is None
    assert facts.kernel.peer_memory_clients is None
