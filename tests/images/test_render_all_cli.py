"""`gpudoctor render --all`: options, summary line, determinism, and stale-folder removal that
never touches files gpudoctor did not write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.builder.images_tree import MANIFEST
from gpudoctor.cli.app import run

DATA = Path(__file__).resolve().parents[1] / "data" / "images"
TWO = str(DATA / "two-frameworks.toml")  # pytorch 2.5.1 cu124 + tensorflow 2.15.0: 4 images
PYTORCH_ONLY = str(DATA / "pytorch-only.toml")  # the same without tensorflow: 2 images
PT_RUNTIME = "pytorch/2.5.1/cu124-ubuntu22.04-runtime"
TF_RUNTIME = "tensorflow/2.15.0/cu122-ubuntu22.04-runtime"


def render_all(matrix: str, out: Path, *extra: str) -> int:
    return run(["--matrix", matrix, "render", "--all", "--out", str(out), *extra])


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_renders_each_row_into_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        f"4 images written to {out} (10 files changed), 0 stale removed"
    )
    # 4 folders x (Dockerfile, requirements.txt) + README + bake + manifest
    assert len(files(out)) == 11
    dockerfile = (out / PT_RUNTIME / "Dockerfile").read_text()
    # the wheels bring CUDA: the runtime base is the plain distribution image
    assert "FROM ubuntu:22.04 AS python" in dockerfile
    assert 'NVIDIA_REQUIRE_CUDA="cuda>=12.' in dockerfile
    assert (out / TF_RUNTIME / "requirements.txt").read_text() == ("tensorflow[and-cuda]==2.15.0\n")


def test_only_tag_pinned_bases_are_warned_about_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render_all(TWO, tmp_path / "images") == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    # Both runtime images share the plain ubuntu:22.04 base; every base is pinned by tag only.
    assert len(warnings) == 1
    assert "4 of 4 images use a base image pinned by tag only (3 distinct bases)" in warnings[0]


def test_a_second_render_is_byte_identical_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    first = files(out)
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert render_all(TWO, out) == 0
    assert "(0 files changed), 0 stale removed" in capsys.readouterr().err
    assert files(out) == first
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == mtimes


def test_stale_rows_are_removed_and_user_files_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    notes = out / "NOTES.md"
    notes.write_text("mine\n")
    (out / "tensorflow/2.15.0/cu122-ubuntu22.04-devel/local.env").write_text("X=1\n")
    capsys.readouterr()

    assert render_all(PYTORCH_ONLY, out) == 0
    err = capsys.readouterr().err
    assert "2 images written" in err
    assert err.splitlines()[-1].endswith("2 stale removed")
    assert "kept " + str(out / "tensorflow/2.15.0/cu122-ubuntu22.04-devel") in err
    assert not (out / TF_RUNTIME).exists()  # emptied, then removed
    assert [p.name for p in (out / "tensorflow/2.15.0/cu122-ubuntu22.04-devel").iterdir()] == [
        "local.env"
    ]
    assert notes.read_text() == "mine\n"
    assert "tensorflow" not in (out / MANIFEST).read_text()
    bake = json.loads((out / "docker-bake.json").read_text())
    assert "tensorflow" not in bake["group"]


def test_without_a_manifest_nothing_is_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    (out / MANIFEST).unlink()
    # The same render again: every file already holds what would be written; the manifest is back.
    assert render_all(TWO, out) == 0
    assert (out / MANIFEST).is_file()
    (out / MANIFEST).unlink()
    capsys.readouterr()
    # A different matrix would overwrite README.md and the bake file, not known to be ours now.
    assert render_all(PYTORCH_ONLY, out) == 2
    assert "README.md" in capsys.readouterr().err
    assert (out / TF_RUNTIME / "Dockerfile").is_file()


def test_a_file_it_did_not_write_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    (out / PT_RUNTIME).mkdir(parents=True)
    (out / PT_RUNTIME / "Dockerfile").write_text("FROM scratch\n")
    assert render_all(TWO, out) == 2
    err = capsys.readouterr().err
    assert f"error: {out / PT_RUNTIME / 'Dockerfile'}: not written by gpudoctor" in err
    assert "hint: move them away" in err
    assert (out / PT_RUNTIME / "Dockerfile").read_text() == "FROM scratch\n"
    assert not (out / MANIFEST).exists()


def test_a_manifest_pointing_outside_is_refused_and_nothing_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    with (out / MANIFEST).open("a") as manifest:
        manifest.write("../victim.txt\n")
    capsys.readouterr()
    assert render_all(PYTORCH_ONLY, out) == 2
    err = capsys.readouterr().err
    assert "'../victim.txt' is not a plain path inside" in err
    assert victim.read_text() == "keep\n"
    assert (out / TF_RUNTIME / "Dockerfile").is_file()


def test_a_symlinked_stale_file_is_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out) == 0
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    stale = out / TF_RUNTIME / "requirements.txt"
    stale.unlink()
    stale.symlink_to(outside)
    assert render_all(PYTORCH_ONLY, out) == 0
    assert outside.read_text() == "keep\n"
    assert stale.is_symlink()


@pytest.mark.parametrize(
    "extra",
    [
        ("--framework", "pytorch"),
        ("--cuda", "12.4"),
        ("--pip", "numpy<2"),
        ("-o", "Dockerfile"),
    ],
)
def test_all_excludes_single_row_options(
    extra: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render_all(TWO, tmp_path / "images", *extra) == 2
    err = capsys.readouterr().err.splitlines()
    option = "--output" if extra[0] == "-o" else extra[0]
    assert err[0] == (
        f"error: --all and {option} cannot go together: --all renders every supported row "
        "as the matrix has it"
    )
    assert err[1].startswith("hint: ")
    assert not (tmp_path / "images").exists()


def test_out_without_all_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--matrix", TWO, "render", "--framework", "pytorch", "--out", "x"]) == 2
    assert "error: --out and --registry only apply with --all" in capsys.readouterr().err


def test_registry_sets_the_tag_prefix(tmp_path: Path) -> None:
    out = tmp_path / "images"
    assert render_all(TWO, out, "--registry", "ghcr.io/acme/") == 0
    bake = json.loads((out / "docker-bake.json").read_text())
    assert bake["variable"]["TAG_PREFIX"] == {"default": "ghcr.io/acme/gpudoctor/"}
    target = bake["target"]["pytorch-2_5_1-cu124-py3_11-ubuntu22_04-runtime"]
    assert target["tags"] == ["${TAG_PREFIX}pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime"]


@pytest.mark.parametrize("registry", ["GHCR.io/Acme", "ghcr.io/acme:1", "ghcr.io/a b"])
def test_a_bad_registry_is_refused(
    registry: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render_all(TWO, tmp_path / "images", "--registry", registry) == 2
    err = capsys.readouterr().err
    assert f"error: --registry {registry!r}: not a registry host and namespace" in err
    assert not (tmp_path / "images").exists()


def test_contexts_are_relative_to_where_render_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert render_all(TWO, Path("build") / "images") == 0
    bake = json.loads((tmp_path / "build/images/docker-bake.json").read_text())
    assert bake["variable"]["IMAGES_DIR"] == {"default": "build/images"}
    elsewhere = tmp_path / "sub"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert render_all(TWO, tmp_path / "abs") == 0
    bake = json.loads((tmp_path / "abs/docker-bake.json").read_text())
    assert bake["variable"]["IMAGES_DIR"] == {"default": (tmp_path / "abs").as_posix()}


def test_an_unwritable_output_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert render_all(TWO, blocker / "images") == 2
    err = capsys.readouterr().err
    assert f"error: cannot write {blocker / 'images'}" in err
    assert "Traceback" not in err
