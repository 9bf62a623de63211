"""`render --all`: every supported matrix row as a folder of images/, an index and a bake file.

`render_images` is pure (matrix and template in, {relative path: bytes} out); `images_tree.
write_tree` puts the result on disk. Each image folder is a complete build context: the
Dockerfile plus the requirements file(s) it COPYs, so that `docker build images/<folder>` works on
its own. The verify script is not among them: `gpudoctor build` passes it to the image at
verify time (builder/verify.py), so an image holds only what its row promises.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gpudoctor.builder.bake import bake_json
from gpudoctor.builder.image_plan import BAKE_FILE, README, Image, ImageSet, plan_images, tag_prefix
from gpudoctor.builder.images_index import index_markdown
from gpudoctor.builder.render import render_dockerfile, requirements_files
from gpudoctor.compat.resolve import all_rows
from gpudoctor.matrix.model import Matrix


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
    prefix = tag_prefix(registry)
    images = plan_images(all_rows(matrix), prefix)
    files: dict[str, bytes] = {}
    for image in images:
        files.update(_image_files(image, template_dir))
    files[README] = index_markdown(images, prefix, context_root).encode("utf-8")
    bake, bake_warnings = bake_json(images, prefix, context_root)
    files[BAKE_FILE] = bake.encode("utf-8")
    return ImageSet(images=images, files=files, warnings=(*_warnings(images), *bake_warnings))


def _image_files(image: Image, template_dir: Path) -> dict[str, bytes]:
    files = {f"{image.folder}/Dockerfile": render_dockerfile(image.spec, template_dir).encode()}
    for name, text in requirements_files(image.spec).items():
        files[f"{image.folder}/{name}"] = text.encode("utf-8")
    return files


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
