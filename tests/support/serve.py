"""Helpers for the `gpudoctor serve` tests: judges over recorded hosts or scripted outcomes, and
a plain HTTP GET over loopback that reports status, headers and body."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.requirements import parse_requirement
from gpudoctor.exporter.live import readiness
from gpudoctor.exporter.schedule import Outcome
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import load
from gpudoctor.matrix.load import load_matrix
from gpudoctor.report.prometheus import render_prometheus

HOSTS = Path(__file__).resolve().parents[1] / "data" / "hosts"


def recorded(name: str) -> HostFacts:
    return load(HOSTS / f"{name}.json")


def judge_of(facts: HostFacts, require: Sequence[str] = ()) -> Callable[[], Outcome]:
    """The judge `serve` runs, over recorded facts instead of this host's probes."""
    matrix = load_matrix()
    intent = Intent(requirements=tuple(parse_requirement(r) for r in require))

    def judge() -> Outcome:
        run = run_checks(facts, matrix, intent)
        text = render_prometheus(facts, run.findings, exit_code=run.exit_code)
        ready, reason = readiness(run.findings, requirements_given=bool(require))
        return Outcome(text, ready, reason, run.exit_code)

    return judge


class Scripted:
    """A judge that returns `outcome`, except on the calls listed in `hang_on`, which wait until
    `release` is set (a probe stuck in NVML). Counts its calls."""

    def __init__(self, outcome: Outcome, hang_on: Sequence[int] = ()) -> None:
        self.outcome = outcome
        self.hang_on = set(hang_on)
        self.release = threading.Event()
        self.calls = 0

    def __call__(self) -> Outcome:
        self.calls += 1
        if self.calls in self.hang_on:
            self.release.wait(60)
        return self.outcome


def get(
    address: tuple[str, int], path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection(*address, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        body = response.read().decode("utf-8")
        return response.status, dict(response.getheaders()), body
    finally:
        connection.close()


def wait_for(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)
