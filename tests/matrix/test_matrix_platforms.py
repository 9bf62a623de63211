"""Platforms in the matrix: `[[wheel]]` rows and `platforms.available_on`, the one rule for
where a framework build exists (x86_64: every variant row; aarch64: only what a row says)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.load import load_matrix, parse_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.platforms import (
    available_on,
    first_cuda_on_pypi,
    machine_of,
    pip_index_args,
    pypi_cpu_only,
)


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def _v(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_pypi_aarch64_torch_rows_record_the_cpu_only_trap_and_its_end(matrix: Matrix) -> None:
    rows = [w for w in matrix.wheels if w.framework == "pytorch" and w.index == "pypi"]
    assert len(rows) >= 15  # one per release 2.0.1 .. 2.15.0, each read from the wheel METADATA
    for w in rows:
        assert w.machine == "aarch64"
        assert w.verified, w.version
        assert w.wheel
        assert "aarch64" in w.wheel
        # Through 2.10.0 the aarch64 wheel brings no CUDA; from 2.11.0 CUDA 13.
        if _v(w.version) <= (2, 10, 0):
            assert w.cpu_only, w.version
        else:
            assert not w.cpu_only, w.version
            assert w.cuda.startswith("13."), w.version
    first = first_cuda_on_pypi(matrix, "pytorch", "aarch64")
    assert first is not None
    assert (first.version, first.cuda) == ("2.11.0", "13.0")


def test_x86_64_is_every_variant_row_on_its_own_index(matrix: Matrix) -> None:
    where = available_on(
        matrix, "pytorch", "2.2.2", "12.1", machine="x86_64", row_index_url="https://x/cu121"
    )
    assert where.ok
    assert where.index_url == "https://x/cu121"
    # Unknown machine: judged as x86_64, the matrix's own rows.
    assert available_on(matrix, "pytorch", "2.2.2", "12.1", machine=None, row_index_url="u").ok


def test_aarch64_cuda_builds_exist_only_where_a_row_says(matrix: Matrix) -> None:
    old = available_on(
        matrix, "pytorch", "2.2.2", "12.1", machine="aarch64", row_index_url="https://x/cu121"
    )
    assert not old.ok
    assert "CPU-only" in old.reason
    assert "aarch64" in old.reason
    new = available_on(matrix, "pytorch", "2.11.0", "13.0", machine="arm64", row_index_url="u")
    assert new.ok
    assert new.index_url is None
    assert new.verified
    assert pip_index_args(new.index_url) == ""
    sbsa = available_on(matrix, "pytorch", "2.10.0", "12.8", machine="aarch64", row_index_url="u")
    assert sbsa.ok
    assert sbsa.index_url == "https://download.pytorch.org/whl/cu128"
    assert not sbsa.verified  # from a thread, not from the wheels
    # No TensorFlow release has a CUDA wheel for aarch64.
    for tf in matrix.tensorflow:
        assert not available_on(
            matrix, "tensorflow", tf.version, tf.cuda, machine="aarch64", row_index_url=None
        ).ok


def test_pypi_cpu_only_names_the_trap_row(matrix: Matrix) -> None:
    row = pypi_cpu_only(matrix, "pytorch", "2.2.2", "aarch64")
    assert row is not None
    assert 'platform_machine == "x86_64"' in row.notes
    assert pypi_cpu_only(matrix, "pytorch", "2.11.0", "aarch64") is None
    assert pypi_cpu_only(matrix, "pytorch", "2.2.2", "x86_64") is None


@pytest.mark.parametrize(
    ("text", "machine"),
    [("x86_64", "x86_64"), ("amd64", "x86_64"), ("linux/arm64", "aarch64"), ("ppc64le", None)],
)
def test_machine_names_have_one_spelling(text: str, machine: str | None) -> None:
    assert machine_of(text) == machine


_HEAD = (
    'schema_version = 1\n[[pytorch]]\nversion = "2.2.2"\npython = ["3.11"]\n'
    'torchvision = "0.17.2"\nsource = "https://example.org/"\n'
    '[[pytorch.variants]]\ncuda = "12.1"\ntag = "cu121"\n'
    'index_url = "https://download.pytorch.org/whl/cu121"\ncudnn = "8.9"\n'
    'arch_list = ["9.0"]\nsource = "https://example.org/"\n'
    '[[cuda]]\nversion = "12.1.1"\nlabel = "x"\nmin_driver_linux = "530.30.02"\n'
    'source = "https://example.org/"\n'
)


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ('machine = "ppc64le"\nindex = "pypi"\ncuda = "none"', "key 'machine'"),
        ('machine = "aarch64"\nindex = "pypi"\ncuda = "cuda"', "key 'cuda'"),
        ('machine = "aarch64"\nindex = "pypi"\ncuda = "12.4"', "not one of the release's"),
    ],
)
def test_bad_wheel_rows_are_refused(row: str, fragment: str) -> None:
    text = (
        _HEAD
        + f'[[wheel]]\nframework = "pytorch"\nversion = "2.2.2"\n{row}\n'
        + 'source = "https://example.org/"\n'
    )
    with pytest.raises(MatrixError) as exc:
        parse_matrix(text, Path("m.toml"))
    assert fragment in exc.value.message


def test_a_wheel_row_for_a_release_not_in_the_matrix_is_refused() -> None:
    text = (
        _HEAD
        + '[[wheel]]\nframework = "pytorch"\nversion = "9.9.9"\nmachine = "aarch64"\n'
        + 'index = "pypi"\ncuda = "none"\nsource = "https://example.org/"\n'
    )
    with pytest.raises(MatrixError) as exc:
        parse_matrix(text, Path("m.toml"))
    assert "no [[pytorch]] row has version 9.9.9" in exc.value.message


def test_arm64_rows_need_an_arm64_base_image(matrix: Matrix) -> None:
    from dataclasses import replace

    from gpudoctor.compat.request import ResolveRequest
    from gpudoctor.compat.resolve import resolve
    from gpudoctor.errors import NoMatchingRow

    # devel takes an nvidia/cuda base (nvcc); runtime rows of wheel-CUDA builds take the plain
    # distribution image, which is multi-arch.
    request = ResolveRequest("pytorch", machine="aarch64", flavor="devel")
    row = resolve(matrix, request)
    assert row.platform == "linux/arm64"
    assert row.base_image.startswith("nvidia/cuda:")
    # The same matrix without its [[image_platform]] row knows no arm64 nvidia/cuda image.
    with pytest.raises(NoMatchingRow) as exc:
        resolve(replace(matrix, image_platforms=()), request)
    assert "no linux/arm64 image of nvidia/cuda:" in exc.value.message


def test_machines_of_lists_where_a_build_is_published(matrix: Matrix) -> None:
    from gpudoctor.matrix.platforms import machines_of

    assert machines_of(matrix, "pytorch", "2.2.2", "12.1") == ("x86_64",)
    assert machines_of(matrix, "pytorch", "2.11.0", "13.0") == ("x86_64", "aarch64")
    assert machines_of(matrix, "tensorflow", "2.21.0", "12.5") == ("x86_64",)


@pytest.mark.parametrize(
    ("version", "cpu_only"),
    [
        ("2.1.0", True),  # between the 2.0.1 and 2.1.2 rows, both CPU-only
        ("2.6.1", True),  # between 2.6.0 and 2.7.1
        ("2.0.0", True),  # below the oldest row, in that row's minor (2.0.1)
        ("1.13.1", False),  # below the oldest row, another minor: nothing says
        ("2.10.1", False),  # the next row (2.11.0) brings CUDA: where the trap ends is unknown
        ("2.1.0a0", False),  # a pre-release is no PyPI release
        ("2.1", False),  # not a whole release
    ],
)
def test_a_release_between_two_cpu_only_rows_is_cpu_only(
    matrix: Matrix, version: str, cpu_only: bool
) -> None:
    row = pypi_cpu_only(matrix, "pytorch", version, "aarch64")
    assert (row is not None) == cpu_only
    if row is not None:
        assert row.version == version
        assert row.notes.startswith(f"no row for {version}: ")
        assert "CPU-only" in row.notes
        assert not row.verified  # told by its neighbours, not read from its wheel
