"""The alert rules through Prometheus' own tool: `promtool check rules` accepts them and
`promtool test rules` (tests/kubernetes/alert-tests.yaml) proves each alert fires on the metrics
it is meant for, after its `for:`, and not on a healthy node."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from tests.support.prometheus_server import RULE_FILE, require, rules_file

ALERT_TESTS = Path(__file__).with_name("alert-tests.yaml")


def alerts() -> set[str]:
    doc = yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))
    return {r["alert"] for g in doc["spec"]["groups"] for r in g["rules"]}


def test_every_alert_has_a_test_that_makes_it_fire() -> None:
    doc = yaml.safe_load(ALERT_TESTS.read_text(encoding="utf-8"))
    fired = {
        case["alertname"]
        for test in doc["tests"]
        for case in test["alert_rule_test"]
        if case["exp_alerts"]
    }
    assert fired == alerts()


def test_promtool_checks_and_tests_the_rules(tmp_path: Path) -> None:
    promtool = require("promtool")
    rules = rules_file(tmp_path)
    checked = subprocess.run(
        [promtool, "check", "rules", str(rules)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(alerts())} rules found" in checked.stdout
    shutil.copy(ALERT_TESTS, tmp_path / ALERT_TESTS.name)
    tested = subprocess.run(
        [promtool, "test", "rules", ALERT_TESTS.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout + tested.stderr


def test_promtool_catches_an_alert_that_does_not_fire(tmp_path: Path) -> None:
    """The unit tests can fail: with GpudoctorRunHung's threshold raised, its test fails."""
    promtool = require("promtool")
    rules = rules_file(tmp_path)
    text = rules.read_text(encoding="utf-8")
    broken = text.replace(
        "gpudoctor_run_in_progress_seconds > 2 * gpudoctor_run_interval_seconds",
        "gpudoctor_run_in_progress_seconds > 20 * gpudoctor_run_interval_seconds",
    )
    assert broken != text
    rules.write_text(broken, encoding="utf-8")
    shutil.copy(ALERT_TESTS, tmp_path / ALERT_TESTS.name)
    tested = subprocess.run(
        [promtool, "test", "rules", ALERT_TESTS.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode != 0
    assert "GpudoctorRunHung" in tested.stdout + tested.stderr
