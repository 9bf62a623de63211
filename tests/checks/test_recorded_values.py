"""Hostile or corrupt snapshots: refused with exit 2 naming the field, or judged with an
`unknown` finding naming the field; never a traceback, never `check-crashed`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpudoctor.cli.app import run

HOSTS = Path(__file__).parents[1] / "data" / "hosts"
BASE = json.loads((HOSTS / "h100-8x-healthy.json").read_text())


def _snapshot(tmp_path: Path, change: Any, name: str = "host.json") -> Path:
    data = json.loads(json.dumps(BASE))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _gpu0(data: dict[str, Any], key: str, value: object) -> None:
    data["nvml"]["gpus"][0][key] = value


UNREADABLE = [
    ("nvml.driver_version", lambda d: d["nvml"].__setitem__("driver_version", "abc")),
    (
        "kernel.nvidia_module_version",
        lambda d: d["kernel"].__setitem__("nvidia_module_version", "x"),
    ),
    ("nvml.gpus[0].compute_capability", lambda d: _gpu0(d, "compute_capability", "abc")),
    (
        "frameworks[0].cuda",
        lambda d: d.__setitem__(
            "frameworks", [{"name": "torch", "version": "2.5.1", "cuda": "abc"}]
        ),
    ),
    ("nvml.gpus[0].memory_total_bytes", lambda d: _gpu0(d, "memory_total_bytes", 10**300)),
]


@pytest.mark.parametrize(("field", "change"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
def test_an_unparseable_value_is_an_unknown_finding_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, change: Any
) -> None:
    path = _snapshot(tmp_path, change)
    assert run(["check", "--from", str(path), "--format", "json"]) in (0, 1)
    findings = json.loads(capsys.readouterr().out)["findings"]
    codes = {f["code"] for f in findings}
    assert "check-crashed" not in codes
    (hit,) = [f for f in findings if f["code"] == "unreadable-value"]
    assert hit["severity"] == "unknown"
    assert hit["subject"] == field


REFUSED = [
    ("schema_version 0", lambda d: d.__setitem__("schema_version", 0), "schema_version"),
    ("schema_version -1", lambda d: d.__setitem__("schema_version", -1), "schema_version"),
    ("4000-digit GPU index", lambda d: _gpu0(d, "index", 10**3999), "gpus[0].index"),
]


@pytest.mark.parametrize(("label", "change", "named"), REFUSED, ids=[r[0] for r in REFUSED])
def test_impossible_snapshots_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, change: Any, named: str
) -> None:
    path = _snapshot(tmp_path, change)
    assert run(["check", "--from", str(path)]) == 2
    err = capsys.readouterr().err
    assert named in err
    assert "hint:" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        '{"schema_version": 1, "platform": ' + "[" * 100_000 + "}",
        '{"schema_version": 1, "timings": [{"probe": "x", "seconds": NaN}]}',
        '{"schema_version": 1, "timings": [{"probe": "x", "seconds": 1e999}]}',
        '{"schema_version": ' + "9" * 5000 + "}",
    ],
    ids=["deep-array", "deep-field", "nan", "infinity", "5000-digits"],
)
def test_hostile_json_is_bad_input_for_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "evil.json"
    path.write_text(text)
    for args in (
        ["check", "--from", str(path)],
        ["render", "--framework", "pytorch", "--from", str(path)],
    ):
        assert run(args) == 2
        err = capsys.readouterr().err
        assert "evil.json" in err
        assert "Traceback" not in err


def test_an_oversized_snapshot_is_refused_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gpudoctor.facts_json.MAX_SNAPSHOT_BYTES", 1024)
    path = tmp_path / "big.json"
    shutil.copy(HOSTS / "h100-8x-healthy.json", path)
    assert run(["check", "--from", str(path)]) == 2
    assert "too large for a snapshot" in capsys.readouterr().err


def test_a_fleet_with_a_bad_file_and_repeated_host_names_still_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def named(data: dict[str, Any]) -> None:
        data["platform"]["hostname"] = "node1"

    _snapshot(tmp_path, named, "a.json")
    _snapshot(tmp_path, named, "b.json")
    (tmp_path / "broken.json").write_text("{")
    assert run(["check", "--from", str(tmp_path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    names = [h["name"] for h in report["hosts"]]
    assert len(names) == len(set(names)) == 3
    problems = {p["code"]: p for p in report["problems"]}
    assert problems["unreadable-snapshot"]["hosts"] == ["broken"]


def test_a_large_fleet_is_judged_by_workers_with_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpudoctor import fleet_summary
    from gpudoctor.matrix.load import load_matrix

    for i in range(6):
        shutil.copy(HOSTS / "h100-8x-healthy.json", tmp_path / f"n{i}.json")
    shutil.copy(HOSTS / "driver-too-old.json", tmp_path / "old.json")
    (tmp_path / "broken.json").write_text("[")
    matrix = load_matrix()
    alone, alone_rc = fleet_summary.judge_fleet([tmp_path], matrix)
    monkeypatch.setattr(fleet_summary, "PARALLEL_FROM", 2)
    workers, workers_rc = fleet_summary.judge_fleet([tmp_path], matrix)
    assert (workers, workers_rc) == (alone, alone_rc)
    assert alone_rc == 1
    assert {p.code for p in alone.problems} >= {"unreadable-snapshot"}


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("driver_version", "abc", "driver version 'abc' is not a version"),
        ("compute_capability", "eight", "compute capability 'eight' is not like 8.6"),
    ],
)
def test_a_value_the_matrix_queries_cannot_read_is_unknown_not_a_crash(
    where: str, value: str, message: str
) -> None:
    """Facts built in memory (a probe or a pasted report, not a validated snapshot) can hold a
    value the queries refuse: the query raises BadValue, the check's answer is unknown."""
    import dataclasses

    from gpudoctor.checks import run_checks
    from gpudoctor.facts_json import load
    from gpudoctor.matrix.load import load_matrix

    facts = load(HOSTS / "h100-8x-healthy.json")
    if where == "driver_version":
        nvml = dataclasses.replace(facts.nvml, driver_version=value)
    else:
        gpus = tuple(dataclasses.replace(g, compute_capability=value) for g in facts.nvml.gpus)
        nvml = dataclasses.replace(facts.nvml, gpus=gpus)
    run = run_checks(dataclasses.replace(facts, nvml=nvml), load_matrix())
    codes = [f.code for f in run.findings]
    assert "check-crashed" not in codes
    unread = [f for f in run.findings if f.code == "unreadable-value"]
    assert unread
    assert all(f.severity.value == "unknown" and message in f.title for f in unread)
