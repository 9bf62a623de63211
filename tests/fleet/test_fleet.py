"""summarize_fleet, its text and JSON reports, and loading a folder of snapshots."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import PlatformFacts
from gpudoctor.facts_json import dumps
from gpudoctor.findings import Severity
from gpudoctor.fleet_summary import load_fleet, snapshot_paths, summarize_fleet
from gpudoctor.report.fleet import render_fleet_json, render_fleet_text
from tests.support.fleet_hosts import (
    degraded_findings,
    degraded_host,
    finding,
    healthy_host,
    no_driver_host,
)


def fleet():
    ok = [finding("driver-ok", Severity.OK, area="driver")]
    return [
        ("node-a", healthy_host(), ok),
        ("node-b", degraded_host(), degraded_findings()),
        (
            "node-c",
            degraded_host(),
            [
                finding("mig-mode-pending", Severity.WARN, "GPU 5"),
                finding("unsure", Severity.UNKNOWN),
            ],
        ),
        ("node-d", no_driver_host(), [finding("nvml-library-not-found", Severity.ERROR)]),
        ("node-e", healthy_host(), [*ok, finding("clock-events-active", Severity.INFO, "GPU 1")]),
    ]


def test_problems_are_grouped_by_code_worst_first_with_their_hosts() -> None:
    summary = summarize_fleet(fleet())
    assert [(p.code, p.severity, p.hosts) for p in summary.problems] == [
        ("mig-mode-pending", Severity.ERROR, ("node-b", "node-c")),  # 2 hosts before 1
        ("nvml-library-not-found", Severity.ERROR, ("node-d",)),
        ("retired-pages-pending", Severity.ERROR, ("node-b",)),
        ("pcie-link-degraded", Severity.WARN, ("node-b",)),
    ]
    mig = summary.problems[0]
    assert [(o.host, o.subject, o.severity) for o in mig.occurrences] == [
        ("node-b", "GPU 0", Severity.ERROR),
        ("node-b", "GPU 2", Severity.ERROR),
        ("node-c", "GPU 5", Severity.WARN),
    ]
    assert mig.fix == "nvidia-smi -r -i 0"  # from the worst occurrence
    assert summary.healthy == ("node-a", "node-e")  # info and ok are no problem
    assert summary.worst is Severity.ERROR


def test_counts_per_severity_for_findings_and_hosts() -> None:
    summary = summarize_fleet(fleet())
    assert dict(summary.counts) == {
        Severity.ERROR: 4,
        Severity.WARN: 2,
        Severity.UNKNOWN: 1,
        Severity.INFO: 2,
        Severity.OK: 3,
        Severity.NA: 0,
    }
    assert dict(summary.hosts_by_worst()) == {
        Severity.ERROR: 2,
        Severity.WARN: 1,
        Severity.UNKNOWN: 0,
        Severity.INFO: 1,
        Severity.OK: 1,
        Severity.NA: 0,
    }
    node_c = summary.hosts[2]
    assert (node_c.worst, node_c.problems, node_c.healthy) == (
        Severity.WARN,
        ("mig-mode-pending",),
        False,
    )


def test_a_host_without_findings_is_healthy_and_an_empty_fleet_is_ok() -> None:
    summary = summarize_fleet([("quiet", healthy_host(), [])])
    assert (summary.healthy, summary.worst, summary.problems) == (("quiet",), Severity.OK, ())
    assert summarize_fleet([]).worst is Severity.OK


def test_repeated_host_names_are_refused() -> None:
    with pytest.raises(ValueError, match="repeated: a"):
        summarize_fleet([("a", healthy_host(), []), ("a", healthy_host(), [])])


def test_text_report_names_hosts_subjects_and_fixes() -> None:
    text = render_fleet_text(summarize_fleet(fleet()))
    assert text.splitlines()[0] == "gpudoctor fleet: 5 hosts, 2 healthy, 3 need attention"
    assert (
        "✗ mig-mode-pending (error) on 2 hosts: node-b (GPU 0, GPU 2), node-c (GPU 5)\n"
        "    mig-mode-pending on GPU 0\n"
        "    fix: nvidia-smi -r -i 0\n"
    ) in text
    assert "✗ nvml-library-not-found (error) on 1 host: node-d\n" in text
    assert "! pcie-link-degraded (warn) on 1 host: node-b (GPU 1)\n" in text
    assert "✓ healthy (2): node-a, node-e\n" in text
    assert text.endswith("findings: 4 error, 2 warn, 1 unknown, 2 info, 3 ok, 0 n/a\n")


def test_text_report_shortens_long_host_lists() -> None:
    hosts = [(f"n{i:02d}", healthy_host(), []) for i in range(25)]
    text = render_fleet_text(summarize_fleet(hosts), max_hosts=3)
    assert "✓ healthy (25): n00, n01, n02, and 22 more\n" in text


def test_json_report_shape() -> None:
    data = json.loads(render_fleet_json(summarize_fleet(fleet())))
    assert list(data) == [
        "kind",
        "version",
        "worst",
        "hosts_total",
        "healthy",
        "hosts_by_worst",
        "findings",
        "problems",
        "hosts",
    ]
    assert (data["kind"], data["version"], data["worst"], data["hosts_total"]) == (
        "gpudoctor-fleet",
        1,
        "error",
        5,
    )
    assert data["healthy"] == ["node-a", "node-e"]
    assert data["findings"]["unknown"] == 1
    mig = data["problems"][0]
    assert mig["hosts"] == ["node-b", "node-c"]
    assert mig["docs"] == "docs/findings.md#mig-mode-pending"
    assert mig["occurrences"][2] == {"host": "node-c", "severity": "warn", "subject": "GPU 5"}
    assert data["hosts"][3] == {
        "name": "node-d",
        "worst": "error",
        "healthy": False,
        "problems": ["nvml-library-not-found"],
        "findings": {"error": 1, "warn": 0, "unknown": 0, "info": 0, "ok": 0, "n/a": 0},
    }


def test_load_fleet_reads_files_and_folders_and_names_hosts(tmp_path: Path) -> None:
    folder = tmp_path / "snaps"
    folder.mkdir()
    (folder / "gpu-01.json").write_text(dumps(healthy_host()), encoding="utf-8")
    named = replace(degraded_host(), platform=PlatformFacts(hostname="dgx-7"))
    (folder / "gpu-02.json").write_text(dumps(named), encoding="utf-8")
    (folder / "notes.txt").write_text("not a snapshot", encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "gpu-01.json").write_text(dumps(no_driver_host()), encoding="utf-8")

    hosts = load_fleet([folder, other / "gpu-01.json", folder / "gpu-01.json"])
    assert [name for name, _ in hosts] == [
        str(folder / "gpu-01.json"),
        "dgx-7",
        "notes",  # a text file is read as a pasted report: this one holds none
        str(other / "gpu-01.json"),
    ]
    assert isinstance(hosts[2][1], FactsError)
    assert "no report recognised" in hosts[2][1].message
    facts = hosts[3][1]
    assert not isinstance(facts, FactsError)
    assert facts.nvml.status == "library_not_found"


def test_a_folder_of_text_reports_is_a_fleet_and_a_report_of_two_hosts_is_two(
    tmp_path: Path,
) -> None:
    from tests.support.pasted_samples import SMI_TABLE

    (tmp_path / "a.txt").write_text(
        "RuntimeError: The NVIDIA driver on your system is too old (found version 12080).\n",
        encoding="utf-8",
    )
    two = SMI_TABLE + "\nthe other node:\n" + SMI_TABLE.replace("570.86.16", "535.104.05")
    (tmp_path / "b.log").write_text(two, encoding="utf-8")
    from gpudoctor.matrix.load import load_matrix

    hosts = load_fleet([tmp_path], load_matrix())
    assert [name for name, _ in hosts] == ["a", "b #1", "b #2"]
    drivers = [f.nvml.driver_version for _, f in hosts if not isinstance(f, FactsError)]
    assert drivers == [None, "570.86.16", "535.104.05"]
    a = hosts[0][1]
    assert not isinstance(a, FactsError)
    assert a.nvml.cuda_driver_version == "12.8"  # 12080 = 12.8


def test_a_folder_without_snapshots_is_a_facts_error(tmp_path: Path) -> None:
    with pytest.raises(FactsError, match="no snapshot files"):
        snapshot_paths([tmp_path])


def test_a_bad_snapshot_is_kept_as_its_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    ((name, error),) = load_fleet([bad])
    assert name == "bad"
    assert isinstance(error, FactsError)
    assert "bad.json: not valid JSON" in error.message


def test_judge_fleet_runs_the_real_checks_on_each_snapshot(tmp_path: Path) -> None:
    from gpudoctor.fleet_summary import judge_fleet
    from gpudoctor.matrix.load import load_matrix

    for name, facts in [
        ("fine", healthy_host()),
        ("worn", degraded_host()),
        ("bare", no_driver_host()),
    ]:
        (tmp_path / f"{name}.json").write_text(dumps(facts), encoding="utf-8")
    summary, exit_code = judge_fleet([tmp_path], load_matrix())
    assert exit_code == 1  # "bare" has no NVML library: an error
    assert [h.name for h in summary.hosts] == ["bare", "fine", "worn"]
    assert summary.healthy == ("fine",)
    assert summary.hosts[0].worst is Severity.ERROR
    worn = {o.subject for p in summary.problems for o in p.occurrences if o.host == "worn"}
    assert {"GPU 0", "GPU 1", "GPU 2"} <= worn  # MIG pending, x8 link, retired pages
    assert all(set(p.hosts) <= {"bare", "worn"} for p in summary.problems)

    only_fine, exit_code = judge_fleet([tmp_path / "fine.json"], load_matrix())
    assert (only_fine.healthy, exit_code) == (("fine",), 0)
