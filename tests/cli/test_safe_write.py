"""Files gpudoctor writes: never through a planted symlink, nothing left on failure, modes kept,
inputs never overwritten, concurrent writers never fail."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from gpudoctor.builder.images_tree import write_tree
from gpudoctor.cli.app import run
from gpudoctor.cli.common import write_output
from gpudoctor.errors import UsageError
from gpudoctor.safe_write import write_atomic

HOSTS = Path(__file__).parents[1] / "data" / "hosts"


def test_planted_symlinks_at_temp_names_are_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "report.json"
    for name in (".report.json.tmp", "report.json.tmp", ".report.json.swp"):
        (tmp_path / name).symlink_to(victim)
    write_output("report\n", out)
    assert out.read_text() == "report\n"
    assert victim.read_text() == "precious\n"


def test_a_symlink_at_the_target_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "report.json"
    out.symlink_to(victim)
    write_output("report\n", out)
    assert victim.read_text() == "precious\n"
    assert not out.is_symlink()
    assert out.read_text() == "report\n"


def test_render_tree_refuses_a_symlinked_subfolder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "images"
    out.mkdir()
    (out / "pytorch").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UsageError, match="symlink"):
        write_tree(out, {"pytorch/2.5/Dockerfile": b"FROM x\n", "README.md": b"index\n"})
    assert list(outside.iterdir()) == []


def test_render_all_refuses_a_symlinked_subfolder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "images"
    assert run(["render", "--all", "--out", str(out)]) == 0
    outside = tmp_path / "outside"
    shutil.move(out / "pytorch", outside)
    (out / "pytorch").symlink_to(outside, target_is_directory=True)
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    (next(iter(before))).write_bytes(b"changed by the user\n")
    assert run(["render", "--all", "--out", str(out)]) == 2
    assert "symlink" in capsys.readouterr().err
    assert next(iter(before)).read_bytes() == b"changed by the user\n"


def test_a_failed_write_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")

    def full_disk(fd: int, mode: int) -> None:  # fails after the data went into the temp file
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("gpudoctor.safe_write.os.fchmod", full_disk)
    with pytest.raises(UsageError, match="No space left"):
        write_output("x" * 8192, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert target.read_text() == "old\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_writing_to_a_full_device_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="No space left"):
        write_output("x" * 65536, Path("/dev/full"))


def test_an_existing_files_mode_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")
    target.chmod(0o640)
    write_output("new\n", target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_output("new\n", tmp_path / "report.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "report.json").stat().st_mode) == 0o640


def test_private_files_are_0600_whatever_was_there(tmp_path: Path) -> None:
    target = tmp_path / "host.json"
    target.write_text("{}")
    target.chmod(0o644)
    write_output("{}", target, private=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_dash_means_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["check", "--from", str(HOSTS / "h100-8x-healthy.json"), "-o", "-"]) in (0, 1)
    assert not (tmp_path / "-").exists()
    captured = capsys.readouterr()
    assert "No issues found" in captured.out
    assert "wrote" not in captured.err


def test_output_equal_to_an_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = tmp_path / "x.json"
    shutil.copy(HOSTS / "h100-8x-healthy.json", snap)
    before = snap.read_bytes()
    assert run(["check", "--from", str(snap), "-o", str(snap)]) == 2
    assert "also an input" in capsys.readouterr().err
    assert snap.read_bytes() == before
    matrix = tmp_path / "m.toml"
    shutil.copy(Path(__file__).parents[2] / "matrices" / "compat.toml", matrix)
    before = matrix.read_bytes()
    args = ["--matrix", str(matrix), "render", "--framework", "pytorch", "-o", str(matrix)]
    assert run(args) == 2
    assert matrix.read_bytes() == before


def test_empty_values_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["check", "--cuda", ""], ["check", "-o", ""], ["check", "--from="]):
        assert run(args) == 2
        assert "empty value" in capsys.readouterr().err


def test_concurrent_writers_never_fail_and_the_last_one_wins(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for _ in range(50):
                write_atomic(target, f"{n}\n".encode())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert target.read_text() in {f"{n}\n" for n in range(4)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_concurrent_tree_writers_never_fail(tmp_path: Path) -> None:
    out = tmp_path / "images"
    errors: list[BaseException] = []
    files = {f"fw/{i}/Dockerfile": f"FROM {i}\n".encode() for i in range(20)}

    def writer() -> None:
        try:
            write_tree(out, files)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (out / "fw/3/Dockerfile").read_bytes() == b"FROM 3\n"


def test_debug_shows_the_traceback_but_keeps_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing.json")
    assert run(["check", "--from", missing]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert run(["--debug", "check", "--from", missing]) == 2
    assert "Traceback" in capsys.readouterr().err
