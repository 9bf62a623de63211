"""make_spec: a resolved row plus user options -> a validated, deterministic ImageSpec."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.builder.spec import BuildOptions, default_tag, make_spec
from gpudoctor.errors import UsageError
from tests.support.builder import ROW

DIGEST = "sha256:" + "ab" * 32


def test_defaults_come_from_the_row() -> None:
    spec = make_spec(ROW, BuildOptions())
    assert spec.tag == "gpudoctor/pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime-amd64"
    assert spec.base_image == ROW.base_image
    assert spec.index_url == ROW.index_url
    assert spec.requirements == ("torch==2.5.1", "torchvision==0.20.1")
    assert spec.require_cuda == "cuda>=12.0${NVIDIA_REQUIRE_CUDA:+ }${NVIDIA_REQUIRE_CUDA}"
    labels = dict(spec.labels)
    assert labels["io.gpudoctor.row-id"] == ROW.id
    assert labels["io.gpudoctor.arch-list"] == "5.0,6.0,7.0,7.5,8.0,8.6,9.0+PTX"
    assert labels["io.gpudoctor.cudnn"] == "9.1.0.70"
    assert labels["org.opencontainers.image.version"] == "2.5.1"
    assert "org.opencontainers.image.created" not in labels  # would defeat the layer cache


def test_a_tag_only_base_is_flagged_mutable_and_a_digest_pins_it() -> None:
    loose = make_spec(ROW, BuildOptions())
    assert not loose.base_pinned
    assert any("mutable" in w and ROW.base_image in w for w in loose.warnings)
    pinned = make_spec(dataclasses.replace(ROW, base_digest=DIGEST), BuildOptions())
    assert pinned.base_pinned
    assert pinned.base_image == f"{ROW.base_image}@{DIGEST}"
    assert dict(pinned.labels)["org.opencontainers.image.base.digest"] == DIGEST
    assert dict(pinned.labels)["org.opencontainers.image.base.name"] == ROW.base_image
    assert not [w for w in pinned.warnings if "mutable" in w]


def test_base_image_override_may_carry_its_own_digest() -> None:
    spec = make_spec(ROW, BuildOptions(base_image=f"mirror.example/cuda:12.4@{DIGEST}"))
    assert spec.base_pinned
    assert spec.base_image.startswith("mirror.example/cuda:12.4@")


def test_user_options_are_validated_sorted_and_deduplicated(tmp_path: Path) -> None:
    spec = make_spec(
        ROW,
        BuildOptions(
            pip=("scipy", "numpy<2", "scipy"),
            tag="team/torch:1",
            build_args=("B=2", "A=1"),
            index_url="https://mirror.example/whl/cu124",
            wheelhouse=tmp_path,
        ),
    )
    assert spec.extra_requirements == ("numpy<2", "scipy")
    assert spec.build_args == (("A", "1"), ("B", "2"))
    assert spec.index_url == "https://mirror.example/whl/cu124"
    assert spec.tag == "team/torch:1"
    assert spec.wheelhouse == tmp_path.resolve()


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        (BuildOptions(pip=("x; $(id)",)), "--pip"),
        (BuildOptions(tag="Team/Torch"), "--tag"),
        (BuildOptions(base_image="x y"), "--base-image"),
        (BuildOptions(build_args=("A=$B",)), "--build-arg"),
        (BuildOptions(index_url="ftp://x"), "--index-url"),
        (BuildOptions(wheelhouse=Path("/no/such/dir")), "--wheelhouse"),
    ],
)
def test_bad_user_values_name_their_flag(options: BuildOptions, flag: str) -> None:
    with pytest.raises(UsageError) as info:
        make_spec(ROW, options)
    assert info.value.message.startswith(flag)
    assert info.value.hint


def test_bad_matrix_requirement_names_the_row() -> None:
    with pytest.raises(UsageError, match=f"matrix row {ROW.id}"):
        make_spec(dataclasses.replace(ROW, requirements=("torch @ file:///x",)), BuildOptions())


def test_default_tag_uses_the_wheel_index_naming() -> None:
    assert default_tag(dataclasses.replace(ROW, cuda="13.0", python="3.12")) == (
        "gpudoctor/pytorch:2.5.1-cu130-py3.12-ubuntu22.04-runtime-amd64"
    )


def test_default_tags_of_rows_differing_by_flavour_or_platform_never_collide() -> None:
    rows = [
        dataclasses.replace(ROW, flavor=flavor, platform=platform)
        for flavor in ("runtime", "devel")
        for platform in ("linux/amd64", "linux/arm64")
    ]
    tags = {default_tag(row) for row in rows}
    assert len(tags) == 4
    assert "gpudoctor/pytorch:2.5.1-cu124-py3.11-ubuntu22.04-devel-arm64" in tags
