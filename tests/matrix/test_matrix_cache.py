"""The per-user disk cache of the validated matrix: used when it matches content and code,
ignored when damaged, foreign or writable by others, and never a source of errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpudoctor.matrix import cache
from gpudoctor.matrix.load import _load_cached, load_matrix
from gpudoctor.resources import default_matrix_path


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GPUDOCTOR_NO_MATRIX_CACHE", raising=False)
    _load_cached.cache_clear()
    return tmp_path / "cache" / "gpudoctor"


@pytest.fixture
def matrix_file(tmp_path: Path) -> Path:
    target = tmp_path / "compat.toml"
    shutil.copy(default_matrix_path(), target)
    return target


def test_a_load_stores_and_the_next_load_uses_it(cache_home: Path, matrix_file: Path) -> None:
    first = load_matrix(matrix_file)
    (entry,) = cache_home.glob("matrix-*.pickle")
    assert entry.stat().st_mode & 0o777 == 0o600
    assert cache_home.stat().st_mode & 0o777 == 0o700
    content = matrix_file.read_bytes()
    assert cache.load(matrix_file.resolve(), content) == first


def test_edited_content_is_not_served_from_the_cache(cache_home: Path, matrix_file: Path) -> None:
    load_matrix(matrix_file)
    edited = matrix_file.read_bytes().replace(b'version = "2.5.1"', b'version = "2.5.9"', 1)
    assert cache.load(matrix_file.resolve(), edited) is None


def test_a_damaged_cache_file_falls_back_to_parsing(cache_home: Path, matrix_file: Path) -> None:
    expected = load_matrix(matrix_file)
    (entry,) = cache_home.glob("matrix-*.pickle")
    entry.write_bytes(b"not a pickle")
    _load_cached.cache_clear()
    assert load_matrix(matrix_file) == expected


def test_a_cache_others_can_write_is_not_trusted(cache_home: Path, matrix_file: Path) -> None:
    load_matrix(matrix_file)
    (entry,) = cache_home.glob("matrix-*.pickle")
    content = matrix_file.read_bytes()
    os.chmod(entry, 0o666)
    assert cache.load(matrix_file.resolve(), content) is None
    os.chmod(entry, 0o600)
    os.chmod(cache_home, 0o777)
    assert cache.load(matrix_file.resolve(), content) is None


def test_an_unwritable_cache_folder_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, matrix_file: Path
) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _load_cached.cache_clear()
    assert load_matrix(matrix_file).pytorch


def test_it_can_be_turned_off(
    cache_home: Path, matrix_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUDOCTOR_NO_MATRIX_CACHE", "1")
    load_matrix(matrix_file)
    assert not cache_home.exists()
