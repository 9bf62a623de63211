"""The plan of the image set `render --all` writes: one Image per supported row (its spec, its
folder, its bake target and its name) and the names of the set's shared files."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.builder import validate
from gpudoctor.builder.spec import BuildOptions, ImageSpec, cuda_tag, image_name, make_spec
from gpudoctor.compat.request import ResolvedRow
from gpudoctor.errors import RenderError, UsageError

README = "README.md"
BAKE_FILE = "docker-bake.json"
DEFAULT_NAMESPACE = "gpudoctor"
REGENERATE = "gpudoctor render --all --out images"
_TARGET_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Image:
    """One rendered image of the set: its spec and where it goes."""

    spec: ImageSpec
    folder: str  # "pytorch/2.5.1/cu124-ubuntu22.04-runtime", relative to the output folder
    target: str  # bake target name ([A-Za-z0-9_-]+)
    name: str  # image name after the tag prefix: "pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime"

    @property
    def row(self) -> ResolvedRow:
        return self.spec.row


@dataclass(frozen=True)
class ImageSet:
    images: tuple[Image, ...]
    files: dict[str, bytes]  # relative posix path -> content, every file the set consists of
    warnings: tuple[str, ...]


def image_folder(row: ResolvedRow) -> str:
    return f"{row.framework}/{row.version}/{cuda_tag(row.cuda)}-{row.distro}-{row.flavor}"


def target_name(row: ResolvedRow) -> str:
    """The row id with every character buildx refuses in a target name (dots) as "_"."""
    return _TARGET_UNSAFE.sub("_", row.id)


def tag_prefix(registry: str | None) -> str:
    """What goes before "pytorch:2.5.1-...": "gpudoctor/", or "REGISTRY/gpudoctor/".

    Raises:
        UsageError: `registry` is not a registry host and/or namespace path.
    """
    if not registry:
        return f"{DEFAULT_NAMESPACE}/"
    prefix = f"{registry.rstrip('/')}/{DEFAULT_NAMESPACE}/"
    try:
        validate.image_tag(f"{prefix}pytorch:1", "--registry")
    except UsageError:
        raise UsageError(
            f"--registry {registry!r}: not a registry host and namespace "
            "(HOST[:PORT][/PATH], path in lower case, no tag)",
            hint="use --registry ghcr.io/acme or --registry registry.example.com:5000/ml",
        ) from None
    return prefix


def plan_images(rows: list[ResolvedRow], prefix: str) -> tuple[Image, ...]:
    """Each row's spec, folder, bake target and image name (tag `prefix` + name)."""
    images: list[Image] = []
    seen: dict[str, str] = {}
    for row in rows:
        folder = image_folder(row)
        if folder in seen:
            # The folder leaves Python out (all_rows promises one Python per build); say so
            # rather than let one row overwrite the other.
            raise RenderError(
                f"rows {seen[folder]} and {row.id} both render into {folder}",
                hint="all_rows must give one Python per framework x CUDA x distro x flavor",
            )
        seen[folder] = row.id
        name = image_name(row)
        spec = make_spec(row, BuildOptions(tag=prefix + name))
        images.append(Image(spec=spec, folder=folder, target=target_name(row), name=name))
    return tuple(images)
