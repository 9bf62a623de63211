"""images/docker-bake.json: one buildx bake target per image, and groups a fleet can split on.

Groups: `default` (every image), one per framework (`pytorch`), per CUDA major (`cuda12`), per
flavor (`runtime`, `devel`) and per framework minor version (`pytorch-2-5`); a group over
MAX_GROUP_TARGETS is split into `NAME-part1`, `NAME-part2`, ... The version groups
partition the targets (each image in exactly one), so a CI matrix over them builds each image
once. Groups stay small because buildx's docker driver loses jobs when one bake runs more than
about 100 targets (docker/buildx#3810); every group but `default` is kept to MAX_GROUP_TARGETS.

Two bake variables keep the file independent of where and for whom it was rendered:
IMAGES_DIR (the folder the contexts live in, relative to where bake runs: bake resolves a
target's context against its working directory, docker/buildx#1028) and TAG_PREFIX
(`gpudoctor/`, or `REGISTRY/gpudoctor/`). Both can be overridden from the environment:
`TAG_PREFIX=ghcr.io/acme/gpudoctor/ docker buildx bake -f images/docker-bake.json pytorch`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gpudoctor import versions

if TYPE_CHECKING:
    from gpudoctor.builder.image_plan import Image

MAX_GROUP_TARGETS = 64
MAX_BAKE_BYTES = 256 * 1024  # buildx parses the whole file before building anything
DEFAULT_GROUP = "default"
GROUP_NAME = re.compile(r"^[A-Za-z0-9_-]+$")  # what buildx accepts for targets and groups


def version_group(image: Image) -> str:
    major, minor = versions.release(image.row.version)[:2]  # type: ignore[index]
    return f"{image.row.framework}-{major}-{minor}"


def cuda_group(image: Image) -> str:
    return f"cuda{image.row.cuda.split('.')[0]}"


def groups_of(images: Sequence[Image]) -> dict[str, list[str]]:
    """Group name -> targets, in a fixed order: default, frameworks, CUDA majors, flavors,
    versions (each in first-seen order, which follows the matrix: newest first)."""
    groups: dict[str, list[str]] = {DEFAULT_GROUP: [i.target for i in images]}
    for key in (
        lambda i: i.row.framework,
        cuda_group,
        lambda i: i.row.flavor,
        version_group,
    ):
        for image in images:
            groups.setdefault(key(image), []).append(image.target)
    return {k: v for name, members in groups.items() for k, v in _split(name, members)}


def _split(name: str, members: list[str]) -> list[tuple[str, list[str]]]:
    """A group over MAX_GROUP_TARGETS becomes `NAME-part1`, `NAME-part2`, ... (in order, sizes
    balanced), so that every group a CI job bakes stays under buildx's limit."""
    if name == DEFAULT_GROUP or len(members) <= MAX_GROUP_TARGETS:
        return [(name, members)]
    parts = -(-len(members) // MAX_GROUP_TARGETS)
    size = -(-len(members) // parts)
    return [(f"{name}-part{n + 1}", members[n * size : (n + 1) * size]) for n in range(parts)]


def bake_document(images: Sequence[Image], prefix: str, context_root: str) -> dict[str, Any]:
    targets = {
        image.target: {
            "context": f"${{IMAGES_DIR}}/{image.folder}",
            "dockerfile": "Dockerfile",
            # The platform the row's wheels exist for (matrix [[wheel]] rows), stated rather
            # than left to the builder's own: an arm64 builder finds no CUDA wheel for most rows.
            "platforms": [image.row.platform],
            "tags": [f"${{TAG_PREFIX}}{image.name}"],
        }
        for image in images
    }
    return {
        "variable": {
            "IMAGES_DIR": {"default": context_root},
            "TAG_PREFIX": {"default": prefix},
        },
        "group": {name: {"targets": members} for name, members in groups_of(images).items()},
        "target": targets,
    }


def bake_json(
    images: Sequence[Image], prefix: str, context_root: str
) -> tuple[str, tuple[str, ...]]:
    """(the bake file's text, a warning when the file grows past MAX_BAKE_BYTES)."""
    document = bake_document(images, prefix, context_root)
    text = json.dumps(document, indent=2) + "\n"
    warnings: list[str] = []  # groups are split under MAX_GROUP_TARGETS (groups_of)
    if len(text.encode("utf-8")) > MAX_BAKE_BYTES:
        warnings.append(
            f"the bake file is {len(text.encode('utf-8')) // 1024} KiB (over "
            f"{MAX_BAKE_BYTES // 1024} KiB): buildx parses it whole before each build"
        )
    return text, tuple(warnings)
