"""The classic builder's JSON stream -> BuildEvents -> BuildOutcome or BuildFailed."""

from __future__ import annotations

import pytest

from gpudoctor.docker.engine import BuildEvent, follow_build, parse_build_output
from gpudoctor.errors import BuildFailed
from gpudoctor.exitcodes import ExitCode

# Shaped like a real docker 20.10 classic-builder stream (recorded, trimmed).
CACHED = [
    {"stream": "Step 1/4 : FROM base AS python"},
    {"stream": "\n"},
    {"stream": " ---> 37c51e2d4c29\n"},
    {"stream": "Step 2/4 : RUN echo hi\n"},
    {"stream": " ---> Using cache\n"},
    {"stream": " ---> 5e810c7070ce\n"},
    {"stream": "Step 3/4 : FROM python\n ---> 37c51e2d4c29\n"},
    {"stream": "Step 4/4 : LABEL a=b\n"},
    {"stream": " ---> Using cache\n ---> b0007c714606\n"},
    {"aux": {"ID": "sha256:b0007c714606" + "0" * 52}},
    {"stream": "Successfully built b0007c714606\n"},
    {"stream": "Successfully tagged t:1\n"},
]

FAILING = [
    {"stream": "Step 1/3 : FROM base\n ---> 37c51e2d4c29\n"},
    {"stream": "Step 2/3 : RUN pip install -r requirements.txt\n"},
    {"stream": " ---> Running in d56350b400fe\n"},
    {"stream": "Looking in links: /tmp/gpudoctor/wheels\n"},
    {"stream": "ERROR: No matching distribution found for torch==2.5.1\n"},
    {
        "errorDetail": {
            "code": 1,
            "message": "The command '/bin/sh -c pip install' returned a non-zero code: 1",
        },
        "error": "The command '/bin/sh -c pip install' returned a non-zero code: 1",
    },
]


def test_stream_lines_become_typed_events() -> None:
    events = list(parse_build_output(CACHED))
    steps = [e for e in events if e.kind == "step"]
    assert [(e.step, e.total) for e in steps] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert steps[1].text == "Step 2/4 : RUN echo hi"
    assert sum(e.kind == "cache" for e in events) == 2
    assert next(e.text for e in events if e.kind == "image").startswith("sha256:b0007c714606")


def test_follow_build_counts_cache_hits_and_keeps_the_full_image_id() -> None:
    seen: list[BuildEvent] = []
    outcome = follow_build(parse_build_output(CACHED), seen.append)
    assert outcome.image_id == "sha256:b0007c714606" + "0" * 52
    assert (outcome.steps, outcome.from_steps, outcome.cached) == (4, 2, 2)
    assert outcome.all_cached
    assert len(seen) == len(list(parse_build_output(CACHED)))


def test_a_failed_step_raises_build_failed_with_step_and_tail() -> None:
    with pytest.raises(BuildFailed) as info:
        follow_build(parse_build_output(FAILING), lambda _: None)
    failed = info.value
    assert failed.exit_code == ExitCode.BUILD_FAILED
    assert failed.step == "Step 2/3 : RUN pip install -r requirements.txt"
    assert "Step 2/3" in failed.message
    assert "non-zero code: 1" in failed.message
    assert "ERROR: No matching distribution found for torch==2.5.1" in failed.log_tail
    assert not any("Step 1/3" in line for line in failed.log_tail)  # only the failing step's log


def test_a_stream_that_ends_without_an_image_is_a_failure() -> None:
    with pytest.raises(BuildFailed, match="without an image id"):
        follow_build(parse_build_output(CACHED[:4]), lambda _: None)


def test_an_uncached_build_is_not_all_cached() -> None:
    uncached = [c for c in CACHED if "Using cache" not in str(c.get("stream", ""))]
    outcome = follow_build(parse_build_output(uncached), lambda _: None)
    assert outcome.cached == 0
    assert not outcome.all_cached


def test_the_stage_images_are_the_ends_of_every_stage_but_the_last() -> None:
    outcome = follow_build(parse_build_output(CACHED), lambda _: None)
    assert outcome.stage_images == ("5e810c7070ce",)  # stage 1 ended there; stage 2 is final


def test_the_counting_reader_tells_the_bytes_sent_as_requests_reads_them(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import requests.utils

    from gpudoctor.docker.sdk_engine import CountingReader

    path = tmp_path / "context.tar"
    path.write_bytes(b"x" * 100_000)
    seen: list[int] = []
    with path.open("rb") as raw:
        reader = CountingReader(raw, 100_000, seen.append)
        assert requests.utils.super_len(reader) == 100_000  # Content-Length, not chunked
        while reader.read(16384):
            pass
    assert seen[0] == 16384
    assert seen[-1] == 100_000
