"""docs/images.md: its GitHub Actions workflow parses, and the groups it builds exist."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "images.md"
BAKE = REPO / "images" / "docker-bake.json"
_YAML_BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.MULTILINE | re.DOTALL)


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    blocks = _YAML_BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) == 1, "docs/images.md should hold exactly one yaml block (the workflow)"
    loaded = yaml.safe_load(blocks[0])
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def groups() -> set[str]:
    return set(json.loads(BAKE.read_text(encoding="utf-8"))["group"])


def _steps(workflow: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return steps


def test_the_workflow_has_the_shape_github_runs(workflow: dict[Any, Any]) -> None:
    # PyYAML reads the bare key `on` as True (YAML 1.1); GitHub reads it as "on".
    triggers = workflow.get("on", workflow.get(True))
    assert "workflow_dispatch" in triggers
    assert set(workflow["jobs"]) == {"groups", "bake"}
    bake = workflow["jobs"]["bake"]
    assert bake["needs"] == "groups"
    assert "fromJSON(needs.groups.outputs.groups)" in bake["strategy"]["matrix"]["group"]
    uses = [s.get("uses", "") for s in _steps(workflow, "bake")]
    assert any(u.startswith("actions/checkout@") for u in uses)
    assert any(u.startswith("docker/setup-buildx-action@") for u in uses)
    runs = [s["run"] for s in _steps(workflow, "bake") if "run" in s]
    assert any(
        'docker buildx bake -f images/docker-bake.json --push "${{ matrix.group }}"' in r
        for r in runs
    )


def test_the_groups_it_names_exist(workflow: dict[Any, Any], groups: set[str]) -> None:
    triggers = workflow.get("on", workflow.get(True))
    choice = triggers["workflow_dispatch"]["inputs"]["group"]
    named = set(choice["options"]) - {"all"}
    assert choice["default"] == "all"
    assert named, "the manual run offers no group"
    assert named <= groups, f"not in images/docker-bake.json: {sorted(named - groups)}"


def _list_script(workflow: dict[Any, Any]) -> str:
    (step,) = [s for s in _steps(workflow, "groups") if s.get("id") == "list"]
    script: str = step["run"]
    return script


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
@pytest.mark.parametrize("wanted", ["all", "cuda12"])
def test_its_group_listing_runs_against_the_bake_file(
    wanted: str, workflow: dict[Any, Any], groups: set[str], tmp_path: Path
) -> None:
    """Run the `groups` job's script as the runner would (bash, GITHUB_OUTPUT, the repo root)."""
    output = tmp_path / "github_output"
    done = subprocess.run(
        ["bash", "-e", "-c", _list_script(workflow)],
        cwd=REPO,
        env={"GROUP": wanted, "GITHUB_OUTPUT": str(output), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    key, _, value = output.read_text().strip().partition("=")
    listed = json.loads(value)
    assert key == "groups"
    assert set(listed) <= groups
    if wanted == "all":
        bake = json.loads(BAKE.read_text(encoding="utf-8"))
        built = [t for g in listed for t in bake["group"][g]["targets"]]
        assert sorted(built) == sorted(bake["target"])  # each image once
        assert "pytorch-2-5" in listed
    else:
        assert listed == [wanted]
