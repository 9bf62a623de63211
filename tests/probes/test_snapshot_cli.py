"""`gpudoctor snapshot`: the real probe on this host, -o round trip, redaction, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor import facts_json
from gpudoctor.cli.app import run
from gpudoctor.errors import FactsError

NO_DRIVER = not Path("/proc/driver/nvidia/version").exists()
CUDA_13 = Path("/usr/local/cuda-13.0")


def _snapshot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpudoctor", "snapshot", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(not NO_DRIVER, reason="asserts what a host without an NVIDIA driver shows")
def test_real_snapshot_of_this_host() -> None:
    done = _snapshot()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    facts = facts_json.loads(done.stdout)
    assert facts.nvml.status in ("library_not_found", "driver_not_loaded")
    assert any(i.probe == "nvml" and i.code.startswith("nvml-") for i in facts.issues)
    assert facts.nvml.gpus == ()
    assert [d for d in facts.kernel.pci_devices if d.kind == "gpu"] == []
    assert facts.platform.hostname is None
    assert facts.platform.os_id
    assert {t.probe for t in facts.timings} >= {"platform", "sysfs", "nvml", "total"}
    if CUDA_13.is_dir():  # this project's build machine carries a CUDA 13.0 toolkit
        (toolkit,) = [t for t in facts.cuda_libs.toolkits if t.path == str(CUDA_13)]
        assert toolkit.version == "13.0"
        assert (toolkit.nvcc_version or "").startswith("13.0.")
        assert any(lib.version == "13" for lib in facts.cuda_libs.cudart)


def test_output_file_round_trip_and_redaction(scenario, tmp_path: Path, capsys) -> None:
    root = str(scenario("healthy-multi-gpu"))
    out = tmp_path / "host.json"
    assert run(["snapshot", "--root", root, "--no-docker", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""  # the file, not stdout
    facts = facts_json.load(out)
    assert (facts.redacted, facts.platform.hostname) == (True, None)
    assert "3f1c2a9e" not in out.read_text()  # the root= UUID on the kernel command line
    assert [p.address for p in facts.kernel.pci_devices] == [
        "0000:05:00.0",
        "0000:18:00.0",
        "0000:2a:00.0",
    ]
    assert not list(tmp_path.glob(".*.tmp"))  # atomic write left no temporary behind

    assert run(["snapshot", "--root", root, "--no-docker", "--no-redact"]) == 0
    full = facts_json.loads(capsys.readouterr().out)
    assert (full.redacted, full.platform.hostname) == (False, "gpu-node-17")


def test_unknown_format_is_a_usage_error(capsys) -> None:
    assert run(["snapshot", "--format", "yaml"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: --format 'yaml' is not one of: json",
        "hint: use --format json",
    ]


def test_unwritable_output_is_one_line_and_a_hint(tmp_path: Path, capsys) -> None:
    target = tmp_path / "missing-dir" / "host.json"
    assert run(["snapshot", "--root", str(tmp_path), "--no-docker", "-o", str(target)]) == 2
    line, hint = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: cannot write {target}")
    assert hint.startswith("hint: ")


def test_help_teaches_the_round_trip() -> None:
    done = _snapshot("--help")
    assert done.returncode == 0
    assert "gpudoctor snapshot -o host.json" in done.stdout
    assert "gpudoctor check --from host.json" in done.stdout
    assert "--no-redact" in done.stdout
    assert "--root" not in done.stdout  # a test hook, hidden


# --- bad snapshots: facts_json directly, and through `check --from` ---------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "host.json"
    path.write_text(text)
    return path


BAD_SNAPSHOTS = [
    ('{"schema_version": 1, "platform": ', "not valid JSON (line 1"),
    ('{"schema_version": 99}', "snapshot schema version 99 is newer than this gpudoctor"),
    (
        '{"schema_version": 1, "kernel": {"pci_devices": "none"}}',
        "$.kernel.pci_devices: expected a list",
    ),
    ('{"schema_version": 1, "nvml": {"device_count": true}}', "$.nvml.device_count: expected int"),
    ("[1, 2]", "not a gpudoctor snapshot"),
]


@pytest.mark.parametrize(("text", "message"), BAD_SNAPSHOTS)
def test_facts_json_refuses_bad_snapshots(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(FactsError) as info:
        facts_json.load(path)
    assert str(path) in info.value.message
    assert message in info.value.message
    assert "\n" not in info.value.message


@pytest.mark.parametrize(("text", "message"), BAD_SNAPSHOTS)
def test_check_from_bad_snapshot_exits_2_with_one_line(
    tmp_path: Path, text: str, message: str, capsys
) -> None:
    path = _write(tmp_path, text)
    assert run(["check", "--from", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    error = captured.err.splitlines()[0]
    assert error.startswith(f"error: {path}")
    assert message in error
    assert "Traceback" not in captured.err


def test_check_from_missing_file(tmp_path: Path, capsys) -> None:
    assert run(["check", "--from", str(tmp_path / "nope.json")]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot read {tmp_path}/nope.json")


def test_snapshot_then_check_from(scenario, tmp_path: Path, capsys) -> None:
    out = tmp_path / "host.json"
    run(["snapshot", "--root", str(scenario("no-driver")), "--no-docker", "-o", str(out)])
    code = run(["check", "--from", str(out), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    # The recorded host has a GPU on the bus and no driver bound: that must fail the check.
    assert (code, report["exit_code"]) == (1, 1)
