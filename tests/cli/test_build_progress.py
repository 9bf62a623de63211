"""A build that talks: the ticker speaks whenever the daemon is silent (step, what pip is doing,
bytes of the context sent, time), log lines are shown once and without escape sequences unless
the reader is a terminal, and a failed step's error is left to the one error line."""

from __future__ import annotations

import io
import time

import pytest

from gpudoctor.builder.activity import clean, pip_activity
from gpudoctor.cli.build_progress import StderrProgress, duration, size
from gpudoctor.docker.engine import BuildEvent


class TimedStream(io.StringIO):
    """Records when each line was written."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def write(self, text: str) -> int:
        self.times.append(time.monotonic())
        return super().write(text)


@pytest.mark.parametrize(
    ("line", "activity"),
    [
        ("Collecting torch==2.5.1", "collecting torch==2.5.1"),
        (
            "  Downloading https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp311-"
            "cp311-linux_x86_64.whl (908.2 MB)",
            "downloading torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl (908.2 MB)",
        ),
        ("Processing /tmp/gpudoctor/wheels/torch-2.5.1-cp311-none-any.whl",
         "collecting torch-2.5.1-cp311-none-any.whl"),
        (
            "Installing collected packages: mpmath, typing-extensions, sympy, nvidia-cudnn-cu12, "
            "torch",
            "installing 5 package(s): 2 more, sympy, nvidia-cudnn-cu12, torch",
        ),
        ("Successfully installed torch-2.5.1", "installed"),
        ("\x1b[33mWARNING: Retrying\x1b[0m", None),
        (" ---> Running in d56350b400fe", None),
    ],
)  # fmt: skip
def test_pip_activity_names_the_wheel(line: str, activity: str | None) -> None:
    assert pip_activity(line) == activity


def test_escape_sequences_only_reach_a_terminal() -> None:
    line = "\x1b[31mERROR:\x1b[0m no \x1b[2Kwheel\x1b]0;title\x07 here"
    assert clean(line, colour=False) == "ERROR: no wheel here"
    assert clean(line, colour=True) == "\x1b[31mERROR:\x1b[0m no wheel here"
    assert clean("10%\r50%\r100% done", colour=False) == "100% done"


def test_no_color_and_pipes_get_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    monkeypatch.setenv("NO_COLOR", "1")
    StderrProgress(stream).build_event(BuildEvent("log", "\x1b[31mred\x1b[0m"))
    assert stream.getvalue() == "    red\n"
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    piped = io.StringIO()
    StderrProgress(piped).build_event(BuildEvent("log", "\x1b[31mred\x1b[0m"))
    assert piped.getvalue() == "    red\n"
    tty = Tty()
    StderrProgress(tty).build_event(BuildEvent("log", "\x1b[31mred\x1b[0m"))
    assert tty.getvalue() == "    \x1b[31mred\x1b[0m\n"


def test_the_ticker_speaks_in_every_silence_with_step_activity_and_time() -> None:
    stream = TimedStream()
    tick = 0.3
    with StderrProgress(stream, colour=False, tick_s=tick) as progress:
        progress.phase("building t:1 from base (row r)")
        progress.build_event(BuildEvent("step", "Step 5/9 : RUN pip install -r r.txt", 5, 9))
        progress.build_event(BuildEvent("log", "  Downloading torch-2.5.1-cp311.whl (908.2 MB)"))
        time.sleep(1.6)  # the daemon is silent
        started = len(stream.times)
        progress.build_event(BuildEvent("step", "Step 6/9 : FROM python", 6, 9))
        time.sleep(0.5)
    lines = stream.getvalue().splitlines()
    ticks = [line for line in lines if line.startswith("    ... ")]
    assert len(ticks) >= 3
    assert ticks[0].startswith(
        "    ... Step 5/9 : RUN pip install -r r.txt: downloading torch-2.5.1-cp311.whl "
        "(908.2 MB) ("
    )
    assert "s in this step, " in ticks[0]
    assert ticks[-1].startswith("    ... Step 6/9 : FROM python (")  # a new step, no old activity
    progress.build_event(BuildEvent("step", "Step 7/9 : RUN pip install x         -r r.txt", 7, 9))
    assert progress.ticker_line(time.monotonic()).startswith(
        "    ... Step 7/9 : RUN pip install x -r r.txt ("
    )
    times = stream.times
    gaps = [times[i + 1] - times[i] for i in range(len(times) - 1)]
    assert max(gaps) < tick + 0.25 + 0.3  # the poll period, and slack for a loaded machine
    assert started < len(stream.times)


def test_the_ticker_counts_the_context_being_sent() -> None:
    stream = io.StringIO()
    progress = StderrProgress(stream, colour=False)
    progress.sending(1_200_000_000, 2_700_000_000)
    assert progress.ticker_line(time.monotonic()).startswith(
        "    ... sending the build context: 1.2 GB of 2.7 GB ("
    )
    assert stream.getvalue() == ""
    progress.sending(2_700_000_000, 2_700_000_000)
    progress.sending(2_700_000_000, 2_700_000_000)  # requests reads once more at the end
    assert stream.getvalue() == "    sent the build context: 2.7 GB in 0 s\n"
    small = io.StringIO()
    quiet = StderrProgress(small, colour=False)
    quiet.sending(4_000, 4_000)
    assert small.getvalue() == ""


def test_a_failed_step_is_said_once_by_the_error_line_not_by_the_progress() -> None:
    stream = io.StringIO()
    progress = StderrProgress(stream, colour=False)
    progress.build_event(BuildEvent("log", "ERROR: No matching distribution found for torch"))
    progress.build_event(BuildEvent("error", "The command returned a non-zero code: 1"))
    assert stream.getvalue() == "    ERROR: No matching distribution found for torch\n"


def test_words_for_sizes_and_durations() -> None:
    assert [duration(4.9), duration(65), duration(3600)] == ["4 s", "1 min 05 s", "60 min 00 s"]
    assert [size(999), size(1_500), size(2_700_000_000)] == ["999 B", "1.5 kB", "2.7 GB"]


def test_a_base_pull_is_activity_for_the_ticker_not_log_lines() -> None:
    from gpudoctor.docker.engine import follow_build, parse_build_output

    stream = [
        {"stream": "Step 1/2 : FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS python\n"},
        {"status": "Downloading", "id": "a1b2c3", "progress": "[==>   ] 120MB/900MB"},
        {"stream": " ---> 37c51e2d4c29\n"},
        {"stream": "Step 2/2 : RUN true\n"},
        {"aux": {"ID": "sha256:" + "ab" * 32}},
    ]
    out = io.StringIO()
    progress = StderrProgress(out, colour=False)
    events: list[BuildEvent] = []

    def seen(event: BuildEvent) -> None:
        events.append(event)
        progress.build_event(event)
        if event.kind == "pull":
            line = progress.ticker_line(time.monotonic())
            assert "pulling the base image: Downloading a1b2c3 [==>   ] 120MB/900MB" in line

    follow_build(parse_build_output(stream), seen)
    assert [e.kind for e in events].count("pull") == 1
    assert "Downloading" not in out.getvalue()  # no log line of it
