"""Suite-wide test switches: marker gating for docker, gpu and manual tests, and golden updates.

- `docker` tests run when a Docker Engine answers; when none does they are skipped with the
  reason, except where GPUDOCTOR_REQUIRE_DOCKER=1 (CI sets it), where they fail instead.
- `gpu` tests run only on a host where NVML reports a GPU (never in CI).
- `manual` tests run only when selected explicitly: `pytest -m manual`.
- `slow` tests run like any other (CI's full run includes them): a quick run deselects them
  with `-m "not slow"`, as .ci/run does on its other Pythons.
The rule is `tests/support/markers.skip_reason`.
- `GPUDOCTOR_UPDATE_GOLDEN=1` rewrites golden files instead of comparing (review the diff).
"""

from __future__ import annotations

import functools
import os
import subprocess

import pytest


@functools.cache
def docker_reachable() -> bool:
    try:
        done = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def gpu_present() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            return bool(pynvml.nvmlDeviceGetCount())
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # any NVML failure means "no usable GPU here"
        return False


@pytest.fixture
def update_golden() -> bool:
    """GPUDOCTOR_UPDATE_GOLDEN=1: rewrite golden files instead of comparing."""
    from tests.support.golden import update_golden

    return update_golden()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from tests.support.markers import skip_reason

    markexpr = config.getoption("markexpr") or ""
    require_docker = os.environ.get("GPUDOCTOR_REQUIRE_DOCKER") == "1"
    for item in items:
        reason = skip_reason(
            item.keywords,
            markexpr,
            gpu_present=gpu_present,
            docker_reachable=docker_reachable,
            require_docker=require_docker,
        )
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if (
        "docker" in item.keywords
        and os.environ.get("GPUDOCTOR_REQUIRE_DOCKER") == "1"
        and not docker_reachable()
    ):
        pytest.fail(
            "GPUDOCTOR_REQUIRE_DOCKER=1 but no Docker Engine answers (scripts/ensure-docker.sh)"
        )
