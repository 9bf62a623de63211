"""The shape of a facts_scan rule (a needle, a pattern, a handler) and what every topic's
rules share: the parser's name, the driver-version pattern, a handler that only notes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpudoctor.pasted.draft import Draft

NAME = "facts in text"

DESCRIPTION = (
    "versions and GPUs named in any text: environment lists, start-up and kernel logs "
    "(driver, CUDA, cuDNN, NCCL, frameworks, OS, kernel, Docker, Kubernetes, MIG, vGPU)"
)

_VER3 = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"  # a driver version: 550.54.15, 535.86

# what a number before it counts ("driver 450 times", "300 MB"): then it is no version
_UNITS = (
    r"(?:times|ms|s|sec|seconds?|minutes?|hours?|days?|mhz|ghz|[kmg]i?b|w|watts?|rpm|fps|x|"
    r"errors?|lines?|steps?|it)\b"
)

Handler = Callable[[re.Match[str], Draft], bool]


@dataclass(frozen=True)
class _Rule:
    needle: str | tuple[str, ...]  # lower case: every line the pattern can match holds one
    pattern: re.Pattern[str]
    handle: Handler


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _says(text: str) -> Handler:
    """A rule whose line tells only what the text is about: the note says it."""

    def handle(m: re.Match[str], d: Draft) -> bool:
        d.note(text)
        return True

    return handle
