"""`render --all`: every supported matrix row as a folder of images/, an index and a bake file.

`render_images` is pure (matrix and template in, {relative path: bytes} out); `images_tree.
write_tree` puts the result on disk. Each image folder is a complete build context: the
Dockerfile plus every file it COPYs (requirements.txt, verify_image.py), copied into each folder
even where folders share them, so that `docker build images/<folder>` works on its own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.build import validate
from gpudoctor.build.spec import VERIFY_SCRIPT, BuildOptions, ImageSpec, cuda_tag
from gpudoctor.errors import RenderError, UsageError
from gpudoctor.matrix.model import Matrix, ResolvedRow

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


def image_name(row: ResolvedRow) -> str:
    tag = f"{row.version}-{cuda_tag(row.cuda)}-py{row.python}-{row.distro}-{row.flavor}"
    return f"{row.framework}:{tag}"


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


def render_images(
    matrix: Matrix, template_dir: Path, *, registry: str | None = None, context_root: str
) -> ImageSet:
    """Render every supported row (`all_rows`) into files: image folders, README.md, bake file.

    `context_root` is the output folder as `docker buildx bake` will be run from (bake resolves
    contexts against its working directory, not against the bake file: docker/buildx#1028).

    Raises:
        RenderError: two rows want the same folder, or the template fails.
        UsageError: a row value or `registry` is unusable.
    """
    from gpudoctor.build.bake import bake_json
    from gpudoctor.build.images_index import index_markdown
    from gpudoctor.matrix.resolve import all_rows

    prefix = tag_prefix(registry)
    verify = _verify_script(template_dir)
    images = plan_images(all_rows(matrix), prefix)
    files: dict[str, bytes] = {}
    for image in images:
        files.update(_image_files(image, template_dir, verify))
    files[README] = index_markdown(images, prefix, context_root).encode("utf-8")
    bake, bake_warnings = bake_json(images, prefix, context_root)
    files[BAKE_FILE] = bake.encode("utf-8")
    return ImageSet(images=images, files=files, warnings=(*_warnings(images), *bake_warnings))


def plan_images(rows: list[ResolvedRow], prefix: str) -> tuple[Image, ...]:
    """Each row's spec, folder, bake target and image name (tag `prefix` + name)."""
    from gpudoctor.build.spec import make_spec

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


def _image_files(image: Image, template_dir: Path, verify: bytes) -> dict[str, bytes]:
    from gpudoctor.build.render import render_dockerfile, requirements_files

    files = {f"{image.folder}/Dockerfile": render_dockerfile(image.spec, template_dir).encode()}
    for name, text in requirements_files(image.spec).items():
        files[f"{image.folder}/{name}"] = text.encode("utf-8")
    files[f"{image.folder}/{VERIFY_SCRIPT}"] = verify
    return files


def _verify_script(template_dir: Path) -> bytes:
    path = template_dir / VERIFY_SCRIPT
    try:
        return path.read_bytes()
    except OSError as exc:
        raise RenderError(
            f"verify script {path} unreadable: {exc.strerror or exc}", hint="reinstall gpudoctor"
        ) from None


def _warnings(images: tuple[Image, ...]) -> tuple[str, ...]:
    """One line for the tag-only bases instead of one per image (70 identical warnings hide
    everything else)."""
    unpinned = Counter(i.spec.base_image for i in images if not i.spec.base_pinned)
    if not unpinned:
        return ()
    total = sum(unpinned.values())
    return (
        f"{total} of {len(images)} images use a base image pinned by tag only "
        f"({len(unpinned)} distinct bases): a rebuild may get different bits; add base "
        "digests to the matrix ([[base_image]] digests) to pin them",
    )
