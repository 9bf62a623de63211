"""The markers' promises: `manual` tests run only when selected, `slow` tests run in the whole
suite and in CI's run on the main Python, and the quicker runs on the other Pythons leave out
`slow` and `docker`. The rule conftest applies is `tests/support/markers.skip_reason`."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from gpudoctor import tomlread
from tests.support.markers import skip_reason

ROOT = Path(__file__).resolve().parents[1]


def _never() -> bool:
    raise AssertionError("asked about the host for a test that does not need it")


def _reason(keywords: set[str], markexpr: str = "", **host: bool) -> str | None:
    return skip_reason(
        keywords,
        markexpr,
        gpu_present=(lambda: host["gpu"]) if "gpu" in host else _never,
        docker_reachable=(lambda: host["docker"]) if "docker" in host else _never,
        require_docker=host.get("require_docker", False),
    )


def test_a_manual_test_runs_only_when_the_expression_names_it() -> None:
    assert _reason({"manual"}) == "manual test: select it with `-m manual`"
    assert _reason({"manual"}, "not docker and not slow") is not None
    assert _reason({"manual"}, "manual") is None
    assert _reason({"manual"}, "manual and not docker") is None


def test_a_slow_test_is_never_skipped_by_the_gate() -> None:
    for markexpr in ("", "slow", "not docker"):
        assert _reason({"slow"}, markexpr) is None


def test_gpu_and_docker_tests_ask_the_host_and_ci_requires_docker() -> None:
    assert _reason({"gpu"}, gpu=False) == "needs an NVIDIA GPU with a driver"
    assert _reason({"gpu"}, gpu=True) is None
    assert _reason({"docker"}, docker=False) == "no Docker Engine reachable"
    assert _reason({"docker"}, docker=True) is None
    # Required (CI): not skipped; conftest's setup hook fails it when no engine answers.
    assert _reason({"docker"}, require_docker=True) is None


def test_pyproject_declares_each_marker_the_gate_knows() -> None:
    pyproject = tomlread.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = {m.split(":")[0] for m in pyproject["tool"]["pytest"]["ini_options"]["markers"]}
    assert {"docker", "gpu", "slow", "manual"} <= declared


def _pytest_runs(script: str) -> list[list[str]]:
    """The `-m` expressions of each pytest run .ci/run starts (directly or through test.sh)."""
    runs = []
    for line in script.splitlines():
        code = line.split("#", 1)[0]
        if "scripts/test.sh" in code or "python -m pytest" in code:
            runs.append(re.findall(r'-m "([^"]*)"', code))
    return runs


def test_ci_runs_slow_tests_on_the_main_python_and_not_on_the_others() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_sh = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    # test.sh passes on its own arguments only, and .ci/run gives it none: the whole suite.
    assert 'exec python -m pytest "$@"' in test_sh
    (main,) = [line for line in script.splitlines() if line.startswith("bash scripts/test.sh")]
    words = shlex.split(main)
    assert words[:2] == ["bash", "scripts/test.sh"]
    assert "-m" not in words
    others = [r for r in _pytest_runs(script) if r]
    assert others == [["not docker and not slow"]]
