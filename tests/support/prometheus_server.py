"""A real Prometheus server (Debian's `prometheus` package, installed by
scripts/ensure-prometheus.sh) started on 127.0.0.1 with a temporary configuration, and its
HTTP query API. Tests skip with the reason when it is not installed, except in CI
(GPUDOCTOR_REQUIRE_PROMETHEUS=1, set by .ci/run), where its absence fails them."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.ci import REPO

RULE_FILE = REPO / "deploy" / "kubernetes" / "prometheus-rule.yaml"


def require(tool: str) -> str:
    """The path of `tool`, or a skip (a failure in CI) that says how to install it."""
    path = shutil.which(tool)
    if path is None:
        reason = f"{tool} is not installed: bash scripts/ensure-prometheus.sh (Debian's prometheus)"
        if os.environ.get("GPUDOCTOR_REQUIRE_PROMETHEUS"):
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def rules_file(folder: Path) -> Path:
    """The PrometheusRule's `spec.groups` as a plain Prometheus rules file."""
    doc = yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))
    path = folder / "gpudoctor-rules.yaml"
    path.write_text(yaml.safe_dump({"groups": doc["spec"]["groups"]}), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Prometheus:
    """`prometheus` scraping `targets` every second, with gpudoctor's rules loaded."""

    def __init__(self, folder: Path, targets: Sequence[str]) -> None:
        binary = require("prometheus")
        self.port = free_port()
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(rules_file(folder))],
            "scrape_configs": [
                {
                    "job_name": "gpudoctor",
                    "scrape_timeout": "1s",
                    "static_configs": [{"targets": list(targets)}],
                }
            ],
        }
        config_path = folder / "prometheus.yml"
        config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.log = (folder / "prometheus.log").open("w")
        self.process = subprocess.Popen(
            [
                binary,
                f"--config.file={config_path}",
                f"--storage.tsdb.path={folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.log_path = folder / "prometheus.log"

    def api(self, path: str, **params: str) -> Any:
        url = f"http://127.0.0.1:{self.port}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    def query(self, expr: str) -> list[dict[str, Any]]:
        answer = self.api("/api/v1/query", query=expr)
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result

    def wait_until_scraped(self, targets: int, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                raise AssertionError(
                    "prometheus exited: " + self.log_path.read_text(encoding="utf-8")
                )
            try:
                up = self.query('up{job="gpudoctor"} == 1')
                scraped = self.query("count(gpudoctor_check_status) by (instance)")
                if len(up) == targets and len(scraped) == targets:
                    return
            except OSError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                raise AssertionError(
                    "targets not scraped in time: " + self.log_path.read_text(encoding="utf-8")
                )
            time.sleep(0.25)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
