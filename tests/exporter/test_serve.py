"""`gpudoctor serve` over loopback HTTP: stand-in judges (one that hangs), real checks over
recorded hosts, readiness, staleness, and the HTTP limits."""

from __future__ import annotations

import socket
import time
from collections import Counter
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.exporter import http as exporter_http
from gpudoctor.exporter.http import Running, serve
from gpudoctor.exporter.live import LIVE_METRIC_NAMES
from gpudoctor.exporter.schedule import Outcome, Schedule
from gpudoctor.report.prometheus import METRIC_NAMES
from tests.support.serve import Scripted, get, judge_of, recorded, wait_for

PASSING = Outcome("", ready=True, reason="no failing finding", exit_code=0)


@pytest.fixture
def start() -> Iterator[object]:
    started: list[Running] = []

    def _start(judge: object, interval_s: float = 60.0) -> Running:
        running = serve(Schedule(judge, interval_s), ("127.0.0.1", 0))  # type: ignore[arg-type]
        started.append(running)
        return running

    yield _start
    for running in started:
        running.stop()


def families(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        assert family.name not in found, f"family {family.name} twice"
        found[family.name] = [(dict(s.labels), s.value) for s in family.samples]
    return found


def value(text: str, name: str) -> float | None:
    found = families(text).get(name, [])
    assert len(found) <= 1, name
    return found[0][1] if found else None


def test_a_recorded_host_is_served_with_every_family_and_ready(start) -> None:
    running = start(judge_of(recorded("h100-8x-healthy")))
    wait_for(lambda: get(running.address, "/readyz")[0] == 200)
    status, headers, body = get(running.address, "/metrics")
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    found = families(body)
    assert set(found) == METRIC_NAMES | LIVE_METRIC_NAMES
    series = Counter(
        (name, tuple(sorted(labels.items()))) for name, s in found.items() for labels, _ in s
    )
    assert [s for s, n in series.items() if n > 1] == []
    assert value(body, "gpudoctor_ready") == 1
    assert value(body, "gpudoctor_run_in_progress") == 0
    assert value(body, "gpudoctor_runs_completed") == 1
    assert value(body, "gpudoctor_run_interval_seconds") == 60
    assert 0 <= (value(body, "gpudoctor_last_run_age_seconds") or -1) < 30
    assert value(body, "gpudoctor_gpus") == 8
    assert get(running.address, "/readyz")[2] == "no failing finding\n"
    assert get(running.address, "/healthz")[:1] == (200,)


def test_unmet_requirement_is_503_with_the_reason(start) -> None:
    running = start(judge_of(recorded("h100-8x-healthy"), require=["gpus>=16"]))
    wait_for(lambda: value(get(running.address, "/metrics")[2], "gpudoctor_runs_completed") == 1)
    status, _, reason = get(running.address, "/readyz")
    assert status == 503
    assert reason.startswith("requirement not met: gpus>=16")
    assert value(get(running.address, "/metrics")[2], "gpudoctor_ready") == 0


def test_a_met_requirement_is_ready_even_with_an_error_elsewhere(start) -> None:
    facts = recorded("driver-too-old")
    running = start(judge_of(facts, require=["gpus>=1"]))
    wait_for(lambda: get(running.address, "/readyz")[0] == 200)
    text = get(running.address, "/metrics")[2]
    errors = [
        labels
        for labels, v in families(text)["gpudoctor_check_status"]
        if labels["severity"] == "error" and v == 1
    ]
    assert errors  # the node has errors, and its --require set still holds
    # Without --require, readiness is `check`'s exit code: the errors make it 503.
    other = start(judge_of(facts))
    wait_for(lambda: value(get(other.address, "/metrics")[2], "gpudoctor_runs_completed") == 1)
    status, _, reason = get(other.address, "/readyz")
    assert status == 503
    assert "failing finding" in reason


def test_before_the_first_run_readiness_is_503_and_scrapes_do_not_wait(start) -> None:
    judge = Scripted(PASSING, hang_on=[1])
    running = start(judge)
    wait_for(lambda: judge.calls == 1)
    began = time.monotonic()
    status, _, body = get(running.address, "/metrics")
    assert time.monotonic() - began < 2  # the run hangs; the scrape does not
    assert status == 200
    assert value(body, "gpudoctor_run_in_progress") == 1
    assert value(body, "gpudoctor_last_run_age_seconds") is None  # no run yet: absent, not 0
    assert "gpudoctor_check_status" not in families(body)
    assert get(running.address, "/readyz")[:3:2] == (503, "the first run is still in progress\n")
    judge.release.set()
    wait_for(lambda: get(running.address, "/readyz")[0] == 200)


def test_a_hung_run_is_not_restarted_and_the_result_goes_stale(start) -> None:
    judge = Scripted(PASSING, hang_on=[2])
    running = start(judge, interval_s=0.2)
    wait_for(lambda: judge.calls == 2)  # the first run finished, the second hangs
    wait_for(lambda: get(running.address, "/readyz")[0] == 503, timeout_s=5)
    # Each tick while the run hangs is skipped, not started: wait for two of them.
    skipped = lambda: value(get(running.address, "/metrics")[2], "gpudoctor_runs_skipped")  # noqa: E731
    wait_for(lambda: (skipped() or 0) >= 2, timeout_s=5)
    began = time.monotonic()
    status, _, reason = get(running.address, "/readyz")
    body = get(running.address, "/metrics")[2]
    assert time.monotonic() - began < 2
    assert status == 503
    assert "more than 3 intervals" in reason
    assert value(body, "gpudoctor_run_in_progress") == 1
    assert (value(body, "gpudoctor_run_in_progress_seconds") or 0) > 0.3
    assert (value(body, "gpudoctor_last_run_age_seconds") or 0) > 0.6
    assert (value(body, "gpudoctor_runs_skipped") or 0) >= 2
    assert value(body, "gpudoctor_ready") == 0
    assert judge.calls == 2  # never started again while the hung run holds
    judge.release.set()
    wait_for(lambda: get(running.address, "/readyz")[0] == 200)
    assert judge.calls >= 2


def test_a_run_that_raises_is_counted_and_not_ready(start) -> None:
    def judge() -> Outcome:
        raise RuntimeError("NVML exploded")

    running = start(judge)
    wait_for(lambda: value(get(running.address, "/metrics")[2], "gpudoctor_runs_failed") == 1)
    status, _, reason = get(running.address, "/readyz")
    assert status == 503
    assert "RuntimeError: NVML exploded" in reason


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"])
def test_only_get_is_served(start, method: str) -> None:
    running = start(Scripted(PASSING))
    status, headers, _ = get(running.address, "/metrics", method=method)
    assert status == 405
    assert headers["Allow"] == "GET"


def test_unknown_paths_are_404_and_queries_are_ignored(start) -> None:
    running = start(Scripted(PASSING))
    assert get(running.address, "/nope")[0] == 404
    assert get(running.address, "/metrics?x=1")[0] == 200
    assert get(running.address, "/")[0] == 200


def test_an_oversized_request_head_is_refused(start) -> None:
    running = start(Scripted(PASSING))
    status, _, _ = get(running.address, "/metrics", headers={"X-Big": "a" * 10_000})
    assert status == 431
    status, _, _ = get(running.address, "/" + "a" * 9000)
    assert status == 431
    assert get(running.address, "/healthz")[0] == 200  # and the server goes on


def test_a_silent_client_is_timed_out(start, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exporter_http.Handler, "timeout", 0.3)
    running = start(Scripted(PASSING))
    with socket.create_connection(running.address, timeout=5) as silent:
        silent.sendall(b"GET /metrics HTTP/1.1\r\n")  # and never the rest
        began = time.monotonic()
        assert silent.recv(1024) == b""  # the server hung up
        assert time.monotonic() - began < 3
    assert get(running.address, "/healthz")[0] == 200


def test_a_slow_drip_client_hits_the_request_deadline(
    start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exporter_http, "REQUEST_DEADLINE_S", 0.3)
    running = start(Scripted(PASSING))
    with socket.create_connection(running.address, timeout=5) as drip:
        drip.sendall(b"GET /metrics HTTP/1.1\r\n")
        time.sleep(0.5)  # each byte within the socket timeout, the head past its deadline
        drip.sendall(b"Host: x\r\n\r\n")
        assert drip.recv(1024).startswith(b"HTTP/1.0 408")


def test_connections_beyond_the_cap_are_closed_not_queued(start) -> None:
    schedule = Schedule(Scripted(PASSING), 60)
    server = exporter_http.ExporterServer(("127.0.0.1", 0), schedule, max_connections=2)
    running = Running(server, schedule).start()
    try:
        address = running.address
        idle = [socket.create_connection(address, timeout=5) for _ in range(2)]
        time.sleep(0.3)  # both accepted and held by their handlers
        with socket.create_connection(address, timeout=5) as third:
            third.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
            assert third.recv(1024) == b""  # closed at once
        for sock in idle:
            sock.close()

        def answers() -> bool:
            try:
                return get(address, "/healthz")[0] == 200
            except ConnectionError:  # a slot not yet given back: closed like the third
                return False

        wait_for(answers)  # the freed slots serve again
    finally:
        running.stop()


def test_runs_repeat_on_the_interval_and_each_result_replaces_the_last(start) -> None:
    outcomes = iter(
        [
            Outcome(f"m_run {i}\n", ready=i % 2 == 0, reason=f"run {i}", exit_code=0)
            for i in range(1000)
        ]
    )
    running = start(lambda: next(outcomes), interval_s=0.1)
    wait_for(
        lambda: (value(get(running.address, "/metrics")[2], "gpudoctor_runs_completed") or 0) >= 3
    )
    body = get(running.address, "/metrics")[2]
    (sample,) = families(body)["m_run"]
    completed = value(body, "gpudoctor_runs_completed")
    assert completed is not None
    assert sample[1] == completed - 1  # the latest result, from the same state as the counters
    assert value(body, "gpudoctor_runs_skipped") == 0  # a quick judge never overlaps itself
