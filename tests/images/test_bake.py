"""images/docker-bake.json: buildx-valid names, groups within their limits, contexts that exist."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpudoctor.builder.bake import (
    DEFAULT_GROUP,
    MAX_BAKE_BYTES,
    MAX_GROUP_TARGETS,
    bake_json,
    groups_of,
)
from gpudoctor.builder.image_plan import image_name, plan_images, target_name
from gpudoctor.builder.validate import image_tag
from gpudoctor.errors import RenderError
from gpudoctor.matrix.load import load_matrix
from gpudoctor.compat.resolve import all_rows

REPO = Path(__file__).resolve().parents[2]
BAKE = REPO / "images" / "docker-bake.json"
BUILDX_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")  # buildx's validateName pattern
VERSION_GROUP = re.compile(r"^(pytorch|tensorflow)-[0-9]+-[0-9]+$")


@pytest.fixture(scope="module")
def bake() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(BAKE.read_text(encoding="utf-8"))
    return document


def expand(bake: dict[str, Any], name: str) -> dict[str, Any]:
    """The target as buildx sees it, with the file's variable defaults substituted."""
    values = {k: v["default"] for k, v in bake["variable"].items()}
    text = json.dumps(bake["target"][name])
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    assert "${" not in text, f"{name}: an undefined variable"
    result: dict[str, Any] = json.loads(text)
    return result


def test_the_file_stays_small(bake: dict[str, Any]) -> None:
    assert BAKE.stat().st_size < MAX_BAKE_BYTES
    assert set(bake) == {"variable", "group", "target"}


def test_names_are_ones_buildx_accepts(bake: dict[str, Any]) -> None:
    names = [*bake["group"], *bake["target"]]
    assert all(BUILDX_NAME.match(n) for n in names), [n for n in names if not BUILDX_NAME.match(n)]
    assert not set(bake["group"]) & set(bake["target"])  # one name space in buildx


def test_groups_are_usable(bake: dict[str, Any]) -> None:
    groups = {name: group["targets"] for name, group in bake["group"].items()}
    assert groups[DEFAULT_GROUP] == list(bake["target"])
    for name, members in groups.items():
        assert members, name
        assert len(members) == len(set(members)), name
        assert set(members) <= set(bake["target"]), name
        if name != DEFAULT_GROUP:
            assert len(members) <= MAX_GROUP_TARGETS, f"group {name}: {len(members)} targets"
    names = {re.sub(r"-part\d+$", "", name) for name in groups}  # big groups come in parts
    assert {"pytorch", "tensorflow", "runtime", "devel"} <= names
    assert any(re.fullmatch(r"cuda1[0-9]", g) for g in groups)
    assert "pytorch-2-5" in groups


def test_version_groups_split_the_set(bake: dict[str, Any]) -> None:
    """What the CI example builds: every image once, no image twice."""
    members = [
        t for name, g in bake["group"].items() if VERSION_GROUP.match(name) for t in g["targets"]
    ]
    assert sorted(members) == sorted(bake["target"])


def test_targets_point_at_complete_contexts(bake: dict[str, Any]) -> None:
    tags: list[str] = []
    for name in bake["target"]:
        target = expand(bake, name)
        context = REPO / target["context"]  # bake resolves it against its working directory
        assert (context / target["dockerfile"]).is_file(), name
        assert target["platforms"] == ["linux/amd64"]
        tags.extend(image_tag(tag) for tag in target["tags"])
    assert len(tags) == len(set(tags)) == len(bake["target"])
    assert "gpudoctor/pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime" in tags


def test_an_oversized_group_is_split_in_parts() -> None:
    rows = all_rows(load_matrix())
    images = plan_images(rows, "gpudoctor/")
    many = tuple(
        dataclasses.replace(images[0], target=f"{images[0].target}-{n}") for n in range(70)
    )
    text, warnings = bake_json(many, "gpudoctor/", "images")
    groups = json.loads(text)["group"]
    assert groups[DEFAULT_GROUP]["targets"][69].endswith("-69")
    # split in balanced parts under the limit, in order, none lost; nothing left to warn about
    assert "pytorch" not in groups
    parts = [groups["pytorch-part1"]["targets"], groups["pytorch-part2"]["targets"]]
    assert [len(p) for p in parts] == [35, 35]
    assert parts[0] + parts[1] == groups[DEFAULT_GROUP]["targets"]
    assert not any("bake group" in w for w in warnings)


def test_groups_follow_the_rows() -> None:
    images = plan_images(all_rows(load_matrix()), "gpudoctor/")
    groups = groups_of(images)
    first = images[0]
    assert list(groups)[:4] == [DEFAULT_GROUP, "pytorch-part1", "pytorch-part2", "tensorflow"]
    assert first.target in groups[f"cuda{first.row.cuda.split('.')[0]}"]
    assert target_name(first.row) == first.row.id.replace(".", "_")
    assert image_name(first.row).startswith(f"pytorch:{first.row.version}-cu")


def test_two_rows_in_one_folder_are_refused() -> None:
    row = all_rows(load_matrix())[0]
    twin = dataclasses.replace(row, id=row.id + "-twin", python="3.11")
    with pytest.raises(RenderError, match="both render into"):
        plan_images([row, twin], "gpudoctor/")


def _buildx() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return None
    done = subprocess.run([docker, "buildx", "version"], capture_output=True, check=False)
    return docker if done.returncode == 0 else None


@pytest.mark.skipif(_buildx() is None, reason="docker buildx is not installed")
def test_buildx_reads_the_file() -> None:
    """Where buildx exists (CI), let it resolve a group: names, variables, groups."""
    docker = _buildx()
    assert docker
    done = subprocess.run(
        [docker, "buildx", "bake", "-f", str(BAKE), "--print", "pytorch-2-5"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    target = printed["target"]["pytorch-2_5_1-cu124-py3_11-ubuntu22_04-runtime"]
    assert target["context"] == "images/pytorch/2.5.1/cu124-ubuntu22.04-runtime"
    assert target["tags"] == ["gpudoctor/pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime"]
