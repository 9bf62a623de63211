"""The named exit codes, documented in the README and in `gpudoctor --help`."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Nothing failed."""
    FAILED = 1
    """A check or requirement failed (with --strict, a warning too)."""
    USAGE = 2
    """Usage or bad input: bad flag, bad matrix, bad snapshot, bad expression, no matching row."""
    ENVIRONMENT = 3
    """A required part of the environment is unreachable (the Docker daemon for `build`)."""
    BUILD_FAILED = 4
    """An image build or its verification failed."""
    INTERNAL = 5
    """gpudoctor itself failed (a bug, e.g. a check raised): never a pass; the message names
    what failed and how to report it."""


EXIT_CODES_HELP = (
    "Exit codes: 0 nothing failed; 1 a check or requirement failed (with --strict, warnings too); "
    "2 usage or bad input; 3 a required environment part is unreachable (e.g. the Docker daemon); "
    "4 image build or verification failed; 5 gpudoctor itself failed (a bug: the message says how "
    "to report it)."
)

# What a maintainer needs to reproduce a failure of gpudoctor itself: the traceback (--debug)
# and the host's facts (a redacted snapshot that `check --from` replays anywhere).
REPORT_BUG = (
    "run `gpudoctor check --debug` and `gpudoctor snapshot -o host.json`, and attach both "
    "outputs (host.json is redacted) to a bug report on gpudoctor's issue tracker"
)
