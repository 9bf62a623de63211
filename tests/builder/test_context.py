"""The build context is deterministic and holds only what the Dockerfile needs."""

from __future__ import annotations

import tarfile
from dataclasses import replace
from pathlib import Path

from gpudoctor.builder.context import write_context
from gpudoctor.builder.render import render_dockerfile
from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.builder.wheelhouse import select_wheels
from gpudoctor.resources import templates_dir
from tests.support.builder import ROW, make_fake_torch, make_wheel


def _context(
    tmp_path: Path, name: str, options: BuildOptions, *, served: bool = True
) -> tuple[Path, list[str]]:
    spec = make_spec(ROW, options)
    spec = spec if served else replace(spec, wheel_url=None)
    out = tmp_path / name
    out.mkdir()
    ctx = write_context(spec, render_dockerfile(spec, templates_dir()), templates_dir(), out)
    with tarfile.open(ctx.path) as tar:
        assert all(m.mtime == 0 and m.uid == 0 and m.uname == "" for m in tar.getmembers())
        return ctx.path, tar.getnames()


def test_context_holds_dockerfile_and_requirements_only(tmp_path: Path) -> None:
    """The verify script is passed to the image at verify time, never built into it."""
    path, names = _context(tmp_path, "a", BuildOptions(pip=("numpy",)))
    assert names == ["Dockerfile", "extra-requirements.txt", "requirements.txt"]
    with tarfile.open(path) as tar:
        member = tar.extractfile("requirements.txt")
        assert member is not None
        assert member.read() == b"torch==2.5.1\ntorchvision==0.20.1\n"


def test_equal_inputs_give_byte_identical_contexts(tmp_path: Path) -> None:
    first, _ = _context(tmp_path, "a", BuildOptions(pip=("numpy", "einops")))
    second, _ = _context(tmp_path, "b", BuildOptions(pip=("einops", "numpy")))
    assert first.read_bytes() == second.read_bytes()


def _house(tmp_path: Path) -> Path:
    house = tmp_path / "house"
    house.mkdir()
    make_fake_torch(house)
    make_wheel(house, "torchvision", "0.20.1", {}, requires=("torch==2.5.1", "pillow>=5"))
    make_wheel(house, "pillow", "10.0.0", {})
    make_wheel(house, "typing_extensions", "4.12.0", {})
    make_wheel(house, "unrelated", "1.0", {})
    make_wheel(house, "tomli", "2.0", {})
    make_wheel(
        house,
        "einops",
        "0.8.0",
        {},
        requires=("tomli; python_version < '3.11'", "typing-extensions; extra == 'typing'"),
    )
    return house


def test_wheel_selection_follows_dependencies_with_markers(tmp_path: Path) -> None:
    house = _house(tmp_path)
    chosen = select_wheels(house, ["torchvision==0.20.1", "einops"], "3.11")
    assert not chosen.whole
    assert not chosen.missing
    assert [p.name.split("-")[0] for p in chosen.files] == [
        "einops",
        "pillow",
        "torch",
        "torchvision",
    ]
    # tomli is needed below 3.11 only; typing-extensions only with the extra
    older = select_wheels(house, ["einops[typing]"], "3.10")
    assert [p.name.split("-")[0] for p in older.files] == ["einops", "tomli", "typing_extensions"]


def test_wheel_selection_reports_missing_projects(tmp_path: Path) -> None:
    house = _house(tmp_path)
    chosen = select_wheels(house, ["torch", "scipy"], "3.11")
    assert chosen.missing == ("scipy",)


def test_an_sdist_in_the_way_copies_the_whole_wheelhouse_and_says_so(tmp_path: Path) -> None:
    house = _house(tmp_path)
    (house / "oldpkg-1.0.tar.gz").write_bytes(b"")
    chosen = select_wheels(house, ["oldpkg"], "3.11")
    assert chosen.whole
    assert "whole wheelhouse" in chosen.reason
    assert len(chosen.files) == len(list(house.iterdir()))


def test_a_served_wheelhouse_stays_out_of_the_context(tmp_path: Path) -> None:
    """The default: the wheels are served on 127.0.0.1, the context is as small as without."""
    house = _house(tmp_path)
    _, names = _context(tmp_path, "ctx", BuildOptions(wheelhouse=house))
    assert names == ["Dockerfile", "requirements.txt", "wheelhouse.txt"]  # their digests


def test_offline_context_carries_only_the_needed_wheels(tmp_path: Path) -> None:
    """A daemon that cannot reach this host's 127.0.0.1 gets the needed wheels in the context."""
    house = _house(tmp_path)
    _, names = _context(tmp_path, "ctx", BuildOptions(wheelhouse=house), served=False)
    wheels = sorted(n for n in names if n.startswith("wheels/"))
    assert [w.split("/")[1].split("-")[0] for w in wheels] == ["pillow", "torch", "torchvision"]
