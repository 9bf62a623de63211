"""The shipped matrices/compat.toml: it exists, validates, every row names its source, every
version parses, and every verified framework build resolves to an image row."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from gpudoctor.compat.request import ResolveRequest
from gpudoctor.compat.resolve import all_rows, resolve
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import default_matrix_path
from gpudoctor.versions import numeric

SHIPPED = Path(__file__).resolve().parents[2] / "matrices" / "compat.toml"


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    assert SHIPPED.is_file(), f"{SHIPPED} is missing: the shipped matrix must exist"
    return load_matrix(SHIPPED)


def _rows(matrix: Matrix) -> list[object]:
    variants = [v for r in matrix.pytorch for v in r.variants]
    return [
        *matrix.cuda, *matrix.cuda_majors, *matrix.architectures, *matrix.pytorch, *variants,
        *matrix.tensorflow, *matrix.base_images, *matrix.mig_gpus,
    ]  # fmt: skip


def test_default_matrix_is_the_shipped_file(shipped: Matrix) -> None:
    assert default_matrix_path().resolve() == SHIPPED
    assert load_matrix() is shipped  # the cache: same path, same mtime


def test_every_row_names_an_https_source(shipped: Matrix) -> None:
    rows = _rows(shipped)
    assert len(rows) > 100
    for row in rows:
        source = getattr(row, "source", "")
        assert source.startswith("https://"), row
        assert all(s.startswith("https://") for s in getattr(row, "sources", ())), row


def test_every_version_parses(shipped: Matrix) -> None:
    for release in shipped.cuda:
        Version(release.version)
        assert len(release.version.split(".")) == 3
        if release.min_driver_linux is None:  # unsourced own floor: the row says why
            assert "minor-version rule only" in release.notes, release.version
        else:
            Version(release.min_driver_linux)
    for major in shipped.cuda_majors:
        Version(major.minor_compat_min_driver_linux)
    for arch in shipped.architectures:
        Version(arch.compute_capability), Version(arch.min_cuda)
    for release in shipped.pytorch:
        Version(release.version), Version(release.torchvision)
        # torch 1.0-1.5 (judge-only rows) shipped CPython 3.5 wheels
        oldest = Version("3.5" if release.judge_only else "3.7")
        assert all(Version(p) >= oldest for p in release.python)
        for variant in release.variants:
            Version(variant.cuda)
            # only a judge-only release may lack a sourced cuDNN
            assert variant.cudnn is not None or release.judge_only, release.version
            Version(variant.cudnn or "0")
            assert all(Version(a.removesuffix("+PTX").rstrip("af")) for a in variant.arch_list)
    for tf in shipped.tensorflow:
        assert Version(tf.version) in Requirement(tf.pip).specifier
    for image in shipped.base_images:
        Version(image.cuda)


def test_shipped_matrix_covers_both_frameworks_and_resolves(shipped: Matrix) -> None:
    assert len(shipped.pytorch) >= 5
    assert len(shipped.tensorflow) >= 3
    assert {m.major for m in shipped.cuda_majors} >= {11, 12}
    for framework in ("pytorch", "tensorflow"):
        row = resolve(shipped, ResolveRequest(framework=framework))
        assert row.base_image.startswith("ubuntu:")  # wheel CUDA: a plain runtime base
        devel = resolve(shipped, ResolveRequest(framework=framework, flavor="devel"))
        assert devel.base_image.startswith("nvidia/cuda:")


def _cuda_minor_verified(shipped: Matrix, cuda: str) -> bool:
    """Whether some release of this CUDA major.minor has a confirmed driver floor: without one,
    no image of that CUDA can be promised, however well the framework wheel itself is known."""
    return any(c.verified and c.major_minor == cuda for c in shipped.cuda)


def test_every_verified_build_has_image_rows(shipped: Matrix) -> None:
    ids = {row.id.split("-py")[0] for row in all_rows(shipped)}
    missing = [
        f"pytorch-{r.version}-{v.tag}"
        for r in shipped.pytorch
        for v in r.variants
        if r.verified
        and v.verified
        and _cuda_minor_verified(shipped, v.cuda)
        and f"pytorch-{r.version}-{v.tag}" not in ids
    ]
    # Host-side history (TensorFlow before 2.5: CUDA 10.x and 11.0) has no supported images.
    imaged = {numeric(i.cuda)[:2] for i in shipped.base_images}
    missing += [
        f"tensorflow-{t.version}-cu{t.cuda.replace('.', '')}"
        for t in shipped.tensorflow
        if t.verified
        and numeric(t.cuda)[:2] in imaged
        and f"tensorflow-{t.version}-cu{t.cuda.replace('.', '')}" not in ids
    ]
    assert not missing, f"verified builds without a base image row: {missing}"


def test_all_rows_ids_are_unique_and_reresolvable(shipped: Matrix) -> None:
    rows = all_rows(shipped)
    assert len({r.id for r in rows}) == len(rows)
    for row in rows[:: max(1, len(rows) // 10)]:
        again = resolve(
            shipped,
            ResolveRequest(
                framework=row.framework,
                version=f"=={row.version}",
                cuda=row.cuda,
                python=row.python,
                flavor=row.flavor,
                distro=row.distro,
            ),
        )
        assert again == row
