"""resources.py's unpacking of a zip's gpudoctor/_data/ (the .pyz layout), in process, on a
small archive: the folder it makes, the rename into place, the prune, names that try to leave."""

from __future__ import annotations

import os
import time
import zipfile
from pathlib import Path

from gpudoctor import resources


def _archive(path: Path, files: dict[str, bytes]) -> zipfile.ZipFile:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return zipfile.ZipFile(path)


def test_unpacks_into_a_private_folder_named_for_the_content(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    files = {
        "gpudoctor/_data/matrices/compat.toml": b"schema_version = 1\n",
        "gpudoctor/_data/templates/Dockerfile.j2": b"FROM {{ base }}\n",
        "gpudoctor/_data/../escape.txt": b"outside",
        "gpudoctor/_data//etc/passwd": b"outside",
    }
    with _archive(tmp_path / "a.pyz", files) as zipped:
        members = [i for i in zipped.infolist() if i.filename.startswith("gpudoctor/_data/")]
        target = resources._unpack(zipped, members, base, "pyz-data-x")
    assert target == base / "pyz-data-x"
    assert target.stat().st_mode & 0o777 == 0o700
    assert (target / "matrices" / "compat.toml").read_bytes() == b"schema_version = 1\n"
    assert (target / "templates" / "Dockerfile.j2").read_bytes() == b"FROM {{ base }}\n"
    assert not (tmp_path / "escape.txt").exists()
    assert sorted(p.name for p in base.iterdir()) == ["pyz-data-x"]  # no staging left
    assert sorted(p.name for p in target.rglob("*") if p.is_file()) == [
        "Dockerfile.j2",
        "compat.toml",
    ]


def test_a_second_unpack_of_the_same_content_keeps_the_first(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    files = {"gpudoctor/_data/docs/findings.md": b"# findings\n"}
    with _archive(tmp_path / "a.pyz", files) as zipped:
        first = resources._unpack(zipped, zipped.infolist(), base, "pyz-data-x")
        stamp = (first / "docs" / "findings.md").stat().st_mtime_ns
        again = resources._unpack(zipped, zipped.infolist(), base, "pyz-data-x")
    assert again == first
    assert (first / "docs" / "findings.md").stat().st_mtime_ns == stamp
    assert sorted(p.name for p in base.iterdir()) == ["pyz-data-x"]


def test_data_of_other_builds_older_than_a_week_are_pruned(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    stale, recent = base / "pyz-data-old", base / "pyz-data-recent"
    stale.mkdir()
    recent.mkdir()
    eight_days_ago = time.time() - 8 * 86400
    os.utime(stale, (eight_days_ago, eight_days_ago))
    with _archive(tmp_path / "a.pyz", {"gpudoctor/_data/docs/x.md": b"x"}) as zipped:
        resources._unpack(zipped, zipped.infolist(), base, "pyz-data-new")
    assert sorted(p.name for p in base.iterdir()) == ["pyz-data-new", "pyz-data-recent"]


def test_outside_a_zip_nothing_is_unpacked() -> None:
    assert resources._unpacked_zip_data() is None
    assert (resources.matrices_dir() / "compat.toml").is_file()
