"""The one version reader (gpudoctor/versions.py): every kind of version text gpudoctor meets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpudoctor import versions

PACKAGE = Path(versions.__file__).parent


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("550.90.07", (550, 90, 7)),
        ("2.5.1+cu124", (2, 5, 1)),
        ("2.5.0a0+git1234", (2, 5, 0)),
        ("v12.4", (12, 4)),
        ("9.1.0 (build 7)", (9, 1, 0)),
        ("12", (12,)),
        ("unknown", None),
        (None, None),
    ],
)
def test_release_reads_host_versions(text: str | None, expected: tuple[int, ...] | None) -> None:
    assert versions.release(text) == expected


def test_numeric_is_strict() -> None:
    assert versions.numeric("12.04.1") == (12, 4, 1)
    for bad in ("12.4rc1", "v12.4", "12.4+cu", "", "12..4"):
        with pytest.raises(ValueError, match="not a dotted version"):
            versions.numeric(bad)


def test_major_minor_pads_unless_told_not_to() -> None:
    assert versions.major_minor("12.4.1") == "12.4"
    assert versions.major_minor("12") == "12.0"
    assert versions.major_minor("12", pad=False) is None
    assert versions.major_minor("2.05.1", pad=False) == "2.5"


def test_prefixes_canonical_spellings_and_names() -> None:
    assert versions.same_prefix("9.1.0", "9")
    assert not versions.same_prefix("90100", "9.1.0")
    assert versions.same_prefix("3.11.7", "3.11", 2)
    assert not versions.same_prefix("", "3.11", 2)
    assert versions.canonical("8.00") == "8.0"
    assert versions.canonical("2.5.0a0") == "2.5.0a0"
    assert versions.cuda_tag("12.4.1") == "cu124"
    assert versions.public("2.5.1+cu124") == "2.5.1"
    assert versions.canonical_name("Nvidia_CUDNN.cu12") == "nvidia-cudnn-cu12"
    assert versions.sort_key("12.10") > versions.sort_key("12.9")


def test_only_versions_py_imports_packaging_version() -> None:
    """One home: every other module asks gpudoctor.versions."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "versions.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "packaging.version":
                offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


@given(st.text(alphabet="aAzZ09-_.~ ", max_size=30))
def test_canonical_name_is_packaging_canonicalize_name(name: str) -> None:
    """versions.canonical_name keeps packaging.utils (and packaging.tags) off the start-up path;
    it must still be exactly PEP 503's normalisation as packaging applies it."""
    from packaging.utils import canonicalize_name

    assert versions.canonical_name(name) == str(canonicalize_name(name))


@pytest.mark.parametrize(
    ("have", "op", "want", "expected"),
    [
        ((550, 54, 15), ">=", (550,), True),  # cut to the wanted length
        ((550, 54, 15), ">", (550,), False),
        ((12,), "==", (12, 0), True),  # padded with zeros
        ((12,), "=", (12, 0), True),  # NVIDIA_REQUIRE_CUDA's spelling of ==
        ((12, 4), "<", (12, 6), True),
        ((12, 4), "!=", (12, 4, 0), False),
        ((535, 1), "<=", (535,), True),
        (80.0 * 2**30, ">=", 40.0 * 2**30, True),  # a memory size in bytes
        (8.0, "<", 8.0, False),
    ],
)
def test_compare_reads_versions_on_the_wanted_length(
    have: versions.Comparable, op: str, want: versions.Comparable, expected: bool
) -> None:
    assert versions.compare(have, op, want) is expected


def test_compare_knows_exactly_the_listed_operators() -> None:
    for op in versions.OPERATORS:
        assert isinstance(versions.compare((1,), op, (1,)), bool)
    with pytest.raises(KeyError):
        versions.compare((1,), "~=", (1,))


def test_the_operator_table_has_one_home() -> None:
    """No module but versions.py maps comparison operators to comparisons (a dict whose keys
    include both ">=" and "<=")."""
    homes = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {">=", "<="} <= keys:
                    homes.append(path.relative_to(PACKAGE).as_posix())
    assert homes == ["versions.py"]


@pytest.mark.parametrize(
    ("local", "cuda"),
    [
        ("cu124", "12.4"),
        ("cu92", "9.2"),
        ("cu130", "13.0"),
        ("cpu", None),
        ("rocm6.1", None),
        ("", None),
        ("cu1", None),
    ],
)
def test_cuda_of_a_local_tag(local: str, cuda: str | None) -> None:
    assert versions.cuda_of_tag(local) == cuda
    if cuda:
        assert versions.cuda_tag(cuda) == local  # the reverse of cuda_tag
