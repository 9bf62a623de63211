"""Loading: the typed model from the small matrix, caching, and every validation error."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.exitcodes import ExitCode
from gpudoctor.matrix.load import load_matrix, parse_matrix
from gpudoctor.matrix.model import Matrix, PytorchVariant
from tests.support.matrices import INVALID, SMALL


def test_small_matrix_loads_into_typed_rows(small: Matrix) -> None:
    assert small.schema_version == 1
    assert [r.version for r in small.cuda][:3] == ["11.8.0", "12.1.1", "12.2.2"]
    assert small.cuda[0].min_driver_linux == "520.61.05"
    assert small.cuda[0].min_driver_windows == "520.06"
    assert small.cuda[0].released == "2022-10"
    assert small.cuda[1].released is None
    assert small.cuda_majors[1].major == 12
    assert small.cuda_majors[2].dropped_compute_capabilities == ("5.0", "5.2", "6.0", "6.1", "7.0")
    release = small.pytorch[0]
    assert release.python == ("3.9", "3.10", "3.11", "3.12", "3.13")
    assert release.variants[2] == PytorchVariant(
        cuda="12.8",
        tag="cu128",
        index_url="https://download.pytorch.org/whl/cu128",
        cudnn="9.7.1.26",
        arch_list=("7.5", "8.0", "8.6", "9.0", "10.0", "12.0+PTX"),
        source="https://github.com/pytorch/pytorch/blob/v2.7.1/.ci/manywheel/build_cuda.sh",
        evidence="test fixture: facts as the released wheels state them",
        sources=(),
        verified=True,
        notes="",
        exists="",
        read=(),
    )
    assert small.pytorch[1].verified is False
    assert small.pytorch[1].notes.startswith("test row")
    assert small.tensorflow[1].pip == "tensorflow==2.12.0"
    image = small.base_images[3]
    assert image.digests == (
        (
            "12.4.1-runtime-ubuntu22.04",
            "sha256:0f0a7b4c9e4f1a6d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9",
        ),
    )
    assert small.mig_gpus[0].max_instances == 7


def test_load_is_cached_per_path_and_mtime(tmp_path: Path) -> None:
    copy = tmp_path / "m.toml"
    shutil.copy(SMALL, copy)
    first = load_matrix(copy)
    assert load_matrix(copy) is first
    text = copy.read_text().replace('label = "CUDA 11.8"', 'label = "CUDA 11.8 GA"')
    copy.write_text(text)
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = load_matrix(copy)
    assert second is not first
    assert second.cuda[0].label == "CUDA 11.8 GA"


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(MatrixError, match=r"cannot read matrix file .*nope\.toml"):
        load_matrix(missing)


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(MatrixError, match="cannot read matrix file"):
        load_matrix(tmp_path)


def test_non_utf8_file(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"schema_version = 1\n# caf\xe9\n")
    with pytest.raises(MatrixError, match="not UTF-8"):
        load_matrix(bad)


def test_empty_matrix_is_valid_with_empty_tables(tmp_path: Path) -> None:
    matrix = parse_matrix("schema_version = 1\n", tmp_path / "empty.toml")
    assert matrix.cuda == ()
    assert matrix.pytorch == ()
    assert matrix.base_images == ()


def _expectations(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    return [line.removeprefix("# expect: ") for line in lines if line.startswith("# expect: ")]


INVALID_FILES = sorted(INVALID.glob("*.toml"))


def test_every_invalid_file_states_what_it_expects() -> None:
    assert len(INVALID_FILES) >= 30
    assert all(_expectations(path) for path in INVALID_FILES)


@pytest.mark.parametrize("path", INVALID_FILES, ids=[p.stem for p in INVALID_FILES])
def test_invalid_matrix_error_names_file_table_row_and_key(path: Path) -> None:
    with pytest.raises(MatrixError) as caught:
        load_matrix(path)
    error = caught.value
    assert error.exit_code == ExitCode.USAGE
    assert str(path) in error.message
    for expected in _expectations(path):
        assert expected in error.message, f"{expected!r} not in:\n{error.message}"
    assert error.hint
    assert "Traceback" not in error.message


def test_many_problems_are_all_reported_but_capped(tmp_path: Path) -> None:
    rows = "".join(f'\n[[cuda]]\nversion = "12.{n}.0"\n' for n in range(30))
    with pytest.raises(MatrixError) as caught:
        parse_matrix("schema_version = 1\n" + rows, tmp_path / "many.toml")
    message = caught.value.message
    assert message.startswith("90 problems in the matrix:")
    assert "... and 65 more" in message


def test_driver_branches_load_and_duplicates_are_refused(tmp_path: Path) -> None:
    row = """
[[driver_branch]]
branch = "580"
designation = "long-term support"
end_of_life = "2028-06"
max_cuda_major = 13
last_for = ["Maxwell", "Pascal", "Volta"]
source = "https://docs.nvidia.com/datacenter/tesla/drivers/"
"""
    matrix = parse_matrix("schema_version = 1\n" + row, tmp_path / "m.toml")
    (branch,) = matrix.driver_branches
    assert (branch.branch, branch.end_of_life, branch.max_cuda_major) == ("580", "2028-06", 13)
    assert branch.last_for == ("Maxwell", "Pascal", "Volta")
    with pytest.raises(MatrixError, match="duplicate branch '580'"):
        parse_matrix("schema_version = 1\n" + row + row, tmp_path / "m.toml")
    bad = row.replace('"long-term support"', '"LTS"')
    with pytest.raises(MatrixError, match="key 'designation'"):
        parse_matrix("schema_version = 1\n" + bad, tmp_path / "m.toml")


def test_only_a_judge_only_release_may_leave_its_cudnn_out(tmp_path: Path) -> None:
    """torch before 1.8 has no source for its cuDNN: a judge-only row says none rather than a
    guess; a row that is offered and built must state it."""
    cuda = """
[[cuda]]
version = "10.2.89"
label = "CUDA 10.2"
min_driver_linux = "440.33"
source = "https://docs.nvidia.com/cuda/archive/10.2/cuda-toolkit-release-notes/index.html"
"""
    release = """
[[pytorch]]
version = "1.6.0"
python = ["3.8"]
torchvision = "0.7.0"
{judge}
source = "https://pytorch.org/get-started/previous-versions/"
verified = false
notes = "test row"

[[pytorch.variants]]
cuda = "10.2"
tag = "cu102"
index_url = "https://pypi.org/simple"
source = "https://pytorch.org/get-started/previous-versions/"
verified = false
notes = "test row"
"""
    text = "schema_version = 1\n" + cuda + release.format(judge="judge_only = true")
    (row,) = parse_matrix(text, tmp_path / "m.toml").pytorch
    assert row.judge_only
    assert row.variants[0].cudnn is None
    with pytest.raises(MatrixError, match="cudnn"):
        parse_matrix("schema_version = 1\n" + cuda + release.format(judge=""), tmp_path / "n.toml")


def test_jetpack_rows_load_and_an_l4t_of_two_jetpacks_is_refused(tmp_path: Path) -> None:
    row = """
[[jetpack]]
version = "5.1.1"
l4t = ["35.3.1"]
cuda = "11.4"
source = "https://developer.nvidia.com/embedded/jetpack-sdk-511"
"""
    matrix = parse_matrix("schema_version = 1\n" + row, tmp_path / "m.toml")
    (jetpack,) = matrix.jetpack
    assert (jetpack.version, jetpack.l4t, jetpack.cuda, jetpack.sbsa) == (
        "5.1.1",
        ("35.3.1",),
        "11.4",
        False,
    )
    other = row.replace('"5.1.1"', '"5.1.2"')
    with pytest.raises(MatrixError, match=re.escape("35.3.1 is also JetPack 5.1.1's")):
        parse_matrix("schema_version = 1\n" + row + other, tmp_path / "m.toml")
    # near miss: another L4T release of the same series is another JetPack's
    fine = other.replace('"35.3.1"', '"35.4.1"')
    assert len(parse_matrix("schema_version = 1\n" + row + fine, tmp_path / "m.toml").jetpack) == 2
