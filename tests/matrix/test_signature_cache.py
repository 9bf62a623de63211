"""The signature catalogue is kept in the per-user cache (matrix/cache.py) once validated, so a
later `check --from` does not parse and validate it again: used when content and code match,
without the compiled patterns, and never when edited or damaged."""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import cache
from gpudoctor.matrix.reader import _load_cached
from gpudoctor.matrix.signatures import SignatureCatalogue, load_signatures, signatures_path


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GPUDOCTOR_NO_MATRIX_CACHE", raising=False)
    _load_cached.cache_clear()
    yield tmp_path / "cache" / "gpudoctor"
    _load_cached.cache_clear()


@pytest.fixture
def catalogue_file(tmp_path: Path) -> Path:
    target = tmp_path / "signatures.toml"
    shutil.copy(signatures_path(), target)
    return target


def _codes(catalogue: SignatureCatalogue) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(s.code, s.pattern, s.keywords) for s in catalogue.signatures]


def test_a_load_stores_and_the_next_load_uses_it(cache_home: Path, catalogue_file: Path) -> None:
    first = load_signatures(catalogue_file)
    (entry,) = cache_home.glob("signatures-*.pickle")
    assert entry.stat().st_mode & 0o777 == 0o600
    stored = pickle.loads(entry.read_bytes())
    # the patterns were compiled to validate them, but are not kept: a paste compiles the few
    # whose keywords it holds
    assert all("compiled" not in vars(s) for s in stored.signatures)
    _load_cached.cache_clear()
    again = load_signatures(catalogue_file)
    assert again is not first
    assert _codes(again) == _codes(first)
    known = again.by_code["no-kernel-image"]
    assert known.compiled.search(known.examples[0])


def test_edited_content_is_read_and_validated_again(cache_home: Path, catalogue_file: Path) -> None:
    load_signatures(catalogue_file)
    text = catalogue_file.read_text(encoding="utf-8")
    broken = text.replace('code = "no-kernel-image"', 'code = "Not A Code"', 1)
    assert broken != text
    assert (
        cache.load_model(catalogue_file, broken.encode(), SignatureCatalogue, "signatures") is None
    )
    catalogue_file.write_text(broken, encoding="utf-8")
    _load_cached.cache_clear()
    with pytest.raises(MatrixError, match="Not A Code"):
        load_signatures(catalogue_file)


def test_a_damaged_cache_file_falls_back_to_parsing(cache_home: Path, catalogue_file: Path) -> None:
    expected = _codes(load_signatures(catalogue_file))
    (entry,) = cache_home.glob("signatures-*.pickle")
    entry.write_bytes(b"not a pickle")
    _load_cached.cache_clear()
    assert _codes(load_signatures(catalogue_file)) == expected


def test_a_cached_matrix_is_not_taken_for_a_catalogue(
    cache_home: Path, catalogue_file: Path
) -> None:
    content = catalogue_file.read_bytes()
    cache.store_model(catalogue_file, content, {"not": "a catalogue"}, "signatures")
    assert cache.load_model(catalogue_file, content, SignatureCatalogue, "signatures") is None
