"""Live build progress on stderr: phases, steps, log lines, verify results, and a ticker.

The daemon is silent for minutes at a time (sending a large context, pip installing a
multi-GB wheel, copying the venv); the ticker writes one line whenever nothing was written for
TICK_S seconds: the step, what pip was last seen doing, and the time spent. Colour only on a
terminal (NO_COLOR wins): log lines going to a file or pipe lose their escape sequences.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import IO, TYPE_CHECKING

from gpudoctor.builder.activity import SGR, SGR_SPLIT, clean, pip_activity

if TYPE_CHECKING:
    from gpudoctor.docker.engine import BuildEvent
    from gpudoctor.findings import Finding

TICK_S = 4.0  # silence after which the ticker speaks (the promise is: a line every 5 s)
_POLL_S = 0.25
LARGE_CONTEXT = 10_000_000  # bytes: a context worth a line when it has been sent


def duration(seconds: float) -> str:
    """ "4 s", "1 min 05 s"."""
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


def size(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{int(n_bytes)} B"


class StderrProgress:
    """The pipeline's Progress for people. Use it as a context manager: the ticker thread runs
    inside the `with` block only."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        colour: bool | None = None,
        tick_s: float = TICK_S,
    ) -> None:
        from gpudoctor.report.text import use_colour

        self._stream = stream or sys.stderr
        self._colour = use_colour(self._stream) if colour is None else colour
        self._tick_s = tick_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.cached = 0
        now = time.monotonic()
        self._started = self._since_output = self._step_started = now
        self._doing = "starting"  # the phase or step under way
        self._activity = ""  # what pip was last seen doing in this step
        self._sent = (0, 0)

    # --- the Progress protocol -------------------------------------------------------------

    def phase(self, message: str) -> None:
        with self._lock:
            if not message.startswith(("warning:", "note:")):
                self._begin(message)
            self._write(f"==> {message}")

    def build_event(self, event: BuildEvent) -> None:
        with self._lock:
            if event.kind == "step":
                text = self._shown(event.text)
                self._begin(text)
                self._write(text)
            elif event.kind == "cache":
                self.cached += 1
                self._write(f"    using cache ({self.cached} so far)")
            elif event.kind == "log":
                line = self._shown(event.text)
                self._activity = pip_activity(event.text) or self._activity
                if line.strip():
                    self._write(f"    {line}")
            elif event.kind == "pull":
                self._activity = f"pulling the base image: {clean(event.text, colour=False)}"
            # "error": said once, by the error line the CLI prints (step and message)

    def sending(self, sent: int, total: int) -> None:
        with self._lock:
            if self._sent == (0, 0):
                self._begin("sending the build context")
            done = sent >= total > self._sent[0]
            self._sent = (sent, total)
            if done and total >= LARGE_CONTEXT:  # a small one goes unsaid
                took = duration(time.monotonic() - self._step_started)
                self._write(f"    sent the build context: {size(total)} in {took}")

    def finding(self, finding: Finding) -> None:
        from gpudoctor.findings import MARKS
        from gpudoctor.safe_text import clean_finding

        finding = clean_finding(finding)  # titles quote what the image's probe reported
        mark = MARKS[finding.severity]
        detail = f": {finding.detail}" if finding.detail and str(finding.severity) != "n/a" else ""
        with self._lock:
            self._write(f"    {mark} {finding.title}{detail}")

    # --- the ticker --------------------------------------------------------------------------

    def __enter__(self) -> StderrProgress:
        self._thread = threading.Thread(target=self._tick, name="gpudoctor-ticker", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _tick(self) -> None:
        while not self._stop.wait(_POLL_S):
            with self._lock:
                now = time.monotonic()
                if now - self._since_output >= self._tick_s:
                    self._write(self.ticker_line(now))

    def ticker_line(self, now: float) -> str:
        """ "    ... Step 5/12 : RUN ...: downloading torch-....whl (906.4 MB) (45 s in this
        step, 2 min 10 s in all)"."""
        doing = self._doing if len(self._doing) <= 72 else self._doing[:69] + "..."
        what = f": {self._activity}" if self._activity else ""
        sent, total = self._sent
        if doing == "sending the build context" and total:
            what = f": {size(sent)} of {size(total)}"
        return (
            f"    ... {doing}{what} ({duration(now - self._step_started)} in this step, "
            f"{duration(now - self._started)} in all)"
        )

    def _shown(self, text: str) -> str:
        """What the build printed (a base image's, pip's), as it may be shown: no escape
        sequence but colours on a terminal, every other unprintable character as `?`."""
        from gpudoctor.safe_text import printable

        cleaned = clean(text, colour=self._colour)
        if not self._colour:
            return printable(cleaned)
        return "".join(
            part if SGR.fullmatch(part) else printable(part) for part in SGR_SPLIT.split(cleaned)
        )

    def _begin(self, doing: str) -> None:
        # A RUN step's continuation lines arrive as runs of spaces: one space each.
        self._doing, self._activity = " ".join(doing.split()), ""
        self._step_started = time.monotonic()

    def _write(self, line: str) -> None:
        self._stream.write(line + "\n")
        self._stream.flush()
        self._since_output = time.monotonic()
