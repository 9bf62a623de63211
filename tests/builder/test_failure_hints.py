"""A failed build step's hint names the option that fixes it: a base image that is not there
(pull or load it; --base-image only when none was given), an index the build cannot reach
(--download-wheels then --wheelhouse, or --index-url), a wheelhouse without the wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.builder.failure import explain_failure
from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.docker.engine import follow_build, parse_build_output
from gpudoctor.errors import BuildFailed
from tests.support.builder import ROW

FROM_FAILED = [
    {"stream": "Step 1/14 : FROM nosuch:1 AS python\n"},
    {
        "errorDetail": {"message": "pull access denied for nosuch, repository does not exist"},
        "error": "pull access denied for nosuch, repository does not exist",
    },
]
_PIP = "Step 5/14 : RUN /opt/venv/bin/pip install --no-cache-dir --index-url X -r r.txt\n"
ERROR = {
    "errorDetail": {"message": "The command '/bin/sh -c pip' returned a non-zero code: 1"},
    "error": "The command '/bin/sh -c pip' returned a non-zero code: 1",
}
OFFLINE = [
    {"stream": _PIP},
    {
        "stream": "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, "
        "status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3"
        ".connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: "
        "[Errno -3] Temporary failure in name resolution')': /whl/cu124/torch/\n"
    },
    {"stream": "\x1b[31mERROR: No matching distribution found for torch==2.5.1\x1b[0m\n"},
    ERROR,
]
NO_WHEEL = [
    {"stream": _PIP},
    {"stream": "ERROR: No matching distribution found for torchvision==0.20.1\n"},
    ERROR,
]


def _hint(stream: list[dict[str, object]], options: BuildOptions) -> BuildFailed:
    spec = make_spec(ROW, options)
    with pytest.raises(BuildFailed) as info:
        follow_build(parse_build_output(stream), lambda _: None)
    return explain_failure(info.value, spec, options)


def test_a_missing_base_given_by_the_user_is_pulled_or_loaded_not_given_again() -> None:
    failed = _hint(FROM_FAILED, BuildOptions(base_image="nosuch:1"))
    assert failed.hint is not None
    assert "--base-image" not in failed.hint
    assert "image nosuch:1 is not on this Docker daemon" in failed.hint
    assert "docker pull nosuch:1" in failed.hint
    assert "docker load" in failed.hint


def test_a_missing_default_base_suggests_base_image() -> None:
    failed = _hint(FROM_FAILED, BuildOptions())
    assert failed.hint is not None
    assert "--base-image REF" in failed.hint


def test_an_unreachable_index_names_download_wheels_and_wheelhouse() -> None:
    failed = _hint(OFFLINE, BuildOptions())
    assert failed.hint is not None
    assert "could not reach the package index https://download.pytorch.org/whl/cu124" in (
        failed.hint
    )
    assert "--download-wheels DIR" in failed.hint
    assert "--wheelhouse DIR" in failed.hint
    assert "read the" not in failed.hint
    # the tail is clean text for JSON and files
    assert "ERROR: No matching distribution found for torch==2.5.1" in failed.log_tail
    assert not any("\x1b" in line for line in failed.log_tail)


def test_a_wheelhouse_without_the_wheel_names_it_and_how_to_fill_it(tmp_path: Path) -> None:
    failed = _hint(NO_WHEEL, BuildOptions(wheelhouse=tmp_path))
    assert failed.hint is not None
    assert f"the wheelhouse {tmp_path} has no wheel for torchvision==0.20.1" in failed.hint
    assert "--download-wheels" in failed.hint


def test_an_index_without_the_release_names_index_url() -> None:
    failed = _hint(NO_WHEEL, BuildOptions())
    assert failed.hint is not None
    assert "has no torchvision==0.20.1 for Python 3.11" in failed.hint
    assert "--index-url" in failed.hint
