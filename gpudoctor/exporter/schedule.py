"""Runs a judge every interval in the background and keeps the last outcome.

Each run gets a thread of its own, so a judge that hangs (an NVML call that never returns) holds
only its own thread: the schedule goes on ticking, does not start a second run while one is still
in progress (it counts the skipped tick instead), and the age of the last outcome keeps growing,
which `live.py` exports and readiness turns into 503.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Outcome:
    """What one run concluded: its metrics text, readiness and why, and its exit code."""

    metrics: str
    ready: bool
    reason: str
    exit_code: int


@dataclass(frozen=True)
class State:
    """The schedule at one moment (times from its clock, the monotonic one by default)."""

    interval_s: float
    outcome: Outcome | None = None
    finished_at: float | None = None
    duration_s: float | None = None
    running_since: float | None = None
    completed: int = 0
    skipped: int = 0
    failed: int = 0
    last_error: str = ""

    def age_s(self, now: float) -> float | None:
        """Seconds since the last run finished; None before the first."""
        return None if self.finished_at is None else max(0.0, now - self.finished_at)


Judge = Callable[[], Outcome]


class Schedule:
    """`start()` runs the judge at once and then every `interval_s`; `state()` never blocks on
    a run (the lock guards only the swap of one immutable `State`)."""

    def __init__(
        self, judge: Judge, interval_s: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._judge = judge
        self._clock = clock
        self._lock = threading.Lock()
        self._state = State(interval_s=interval_s)
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def state(self) -> State:
        with self._lock:
            return self._state

    def now(self) -> float:
        return self._clock()

    def start(self) -> None:
        self._ticker = threading.Thread(target=self._tick_loop, name="gpudoctor-schedule")
        self._ticker.daemon = True
        self._ticker.start()

    def stop(self) -> None:
        """Stop ticking; a run in progress finishes (or hangs) in its own daemon thread."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=5)

    def tick(self) -> bool:
        """Start a run unless one is in progress; True when one was started."""
        with self._lock:
            if self._state.running_since is not None:
                self._state = replace(self._state, skipped=self._state.skipped + 1)
                return False
            self._state = replace(self._state, running_since=self._clock())
        worker = threading.Thread(target=self._run, name="gpudoctor-run")
        worker.daemon = True  # a hung judge must not keep the process alive at exit
        worker.start()
        return True

    def _tick_loop(self) -> None:
        while True:
            self.tick()
            if self._stop.wait(self._state.interval_s):
                return

    def _run(self) -> None:
        started = self._clock()
        try:
            outcome = self._judge()
        except Exception as exc:  # a broken run is exported (runs failed), never a dead exporter
            with self._lock:
                self._state = replace(
                    self._state,
                    running_since=None,
                    failed=self._state.failed + 1,
                    last_error=f"{type(exc).__name__}: {exc}",
                )
            return
        finished = self._clock()
        with self._lock:
            self._state = replace(
                self._state,
                outcome=outcome,
                finished_at=finished,
                duration_s=finished - started,
                running_since=None,
                completed=self._state.completed + 1,
            )
