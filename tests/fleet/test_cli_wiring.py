"""`gpudoctor check --format prometheus` and `check --from` over several snapshots, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.cli.app import run
from gpudoctor.facts_json import dumps
from tests.support.fleet_hosts import degraded_host, healthy_host, no_driver_host


@pytest.fixture
def snapshots(tmp_path: Path) -> Path:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    for name, facts in [
        ("fine", healthy_host()),
        ("worn", degraded_host()),
        ("bare", no_driver_host()),
    ]:
        (folder / f"{name}.json").write_text(dumps(facts), encoding="utf-8")
    return folder


def gauge(text: str, name: str, **match: str) -> float:
    (value,) = [
        s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == name and all(s.labels.get(k) == v for k, v in match.items())
    ]
    return value


@pytest.mark.parametrize(("host", "code"), [("worn", 0), ("bare", 1)])
def test_prometheus_file_is_written_whatever_the_verdict(
    snapshots: Path, tmp_path: Path, host: str, code: int
) -> None:
    out = tmp_path / "gpudoctor.prom"
    rc = run(
        [
            "check",
            "--from",
            str(snapshots / f"{host}.json"),
            "--format",
            "prometheus",
            "-o",
            str(out),
        ]
    )
    assert rc == code
    text = out.read_text(encoding="utf-8")
    assert gauge(text, "gpudoctor_check_exit_code") == code
    if host == "worn":
        assert gauge(text, "gpudoctor_gpu_mig_mode_pending", gpu="0") == 1


def test_from_a_folder_reports_the_fleet(
    snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["check", "--from", str(snapshots)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("gpudoctor fleet: 3 hosts, 1 healthy, 2 need attention\n")
    assert "✓ healthy (1): fine" in out


def test_repeated_from_reports_the_fleet_as_json(
    snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--from", str(snapshots / "fine.json"), "--from", str(snapshots / "worn.json")]
    assert run(["check", *args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["kind"], data["hosts_total"]) == ("gpudoctor-fleet", 2)


@pytest.mark.parametrize("fmt", ["junit", "github", "prometheus"])
def test_single_host_formats_are_refused_for_a_fleet(
    snapshots: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    assert run(["check", "--from", str(snapshots), "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --format {fmt}")
    assert "Traceback" not in err
