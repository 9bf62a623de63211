"""`gpudoctor matrix update` against a small index served on 127.0.0.1 by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.matrix.load import load_matrix
from tests.support.wheels import Index, serve, torch_wheel, wheel

CUDA_ROWS = "".join(
    f"""
[[cuda]]
version = "{version}"
label = "CUDA {version}"
min_driver_linux = "{driver}"
source = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"
"""
    for version, driver in [
        ("12.2.2", "535.104.05"),
        ("12.3.2", "545.23.08"),
        ("12.4.1", "550.54.15"),
        ("12.6.3", "560.35.05"),
    ]
)

MATRIX = f"""schema_version = 1
{CUDA_ROWS}
# PyTorch rows, oldest first.

[[pytorch]]
version = "2.5.0"
python = ["3.11", "3.12", "3.13"]
torchvision = "0.20.0"
pypi_default_cuda = "12.4"
source = "https://pypi.org/project/torch/2.5.0/"
evidence = "an older patch the index has moved past"

[[pytorch.variants]]
cuda = "12.4"
tag = "cu124"
index_url = "https://download.pytorch.org/whl/cu124"
cudnn = "9.1.0.70"
arch_list = ["5.0", "9.0"]
source = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md"
evidence = "RELEASE.md (a wrong arch list the index's wheel corrects)"

# TensorFlow rows.

[[tensorflow]]
version = "2.15.0"
python = ["3.9", "3.10", "3.11"]
cuda = "12.2"
cudnn = "8.9"
pip = "tensorflow[and-cuda]==2.15.0"
source = "https://www.tensorflow.org/install/source#gpu"
evidence = "tested build configurations table"
"""

ARCHES_124 = [("sass", 50, ""), ("sass", 80, ""), ("sass", 90, "")]
ARCHES_126 = [("sass", 50, ""), ("sass", 80, ""), ("sass", 90, ""), ("sass", 90, "a")]


def _index() -> Index:
    served = Index()
    linux = "manylinux_2_28_x86_64"
    for tag in ("cp311", "cp312"):
        served.add(
            "torch",
            f"torch-2.5.1-{tag}-{tag}-{linux}.whl",
            torch_wheel("2.5.1", "12.4", "9.1.0.70", ARCHES_124),
        )
        served.add(
            "torch",
            f"torch-2.6.0-{tag}-{tag}-{linux}.whl",
            torch_wheel("2.6.0", "12.6", "9.5.1.17", ARCHES_126),
        )
        served.add(
            "torch", f"torch-2.4.1-{tag}-{tag}-{linux}.whl", torch_wheel("2.4.1", "12.1", "9", [])
        )
    for name, version, pin in [
        ("torchvision", "0.20.1", "2.5.1"),
        ("torchvision", "0.21.0", "2.6.0"),
        ("torchaudio", "2.6.0", "2.6.0"),
    ]:
        served.add(
            name,
            f"{name}-{version}-cp312-cp312-{linux}.whl",
            wheel(name, version, requires=(f"torch=={pin}",)),
        )
    for version, cuda, cudnn in [
        ("2.15.1", "12.2.140", "8.9.4.25"),
        ("2.16.1", "12.3.52", "8.9.7.29"),
    ]:
        served.add(
            "tensorflow",
            f"tensorflow-{version}-cp311-cp311-manylinux_2_17_x86_64.whl",
            wheel(
                "tensorflow",
                version,
                requires=(
                    f"nvidia-cuda-runtime-cu12=={cuda}; extra == 'and-cuda'",
                    f"nvidia-cudnn-cu12=={cudnn}; extra == 'and-cuda'",
                ),
            ),
        )
    return served


@pytest.fixture
def matrix_file(tmp_path: Path) -> Path:
    path = tmp_path / "compat.toml"
    path.write_text(MATRIX)
    return path


def _update(matrix_file: Path, url: str, *args: str) -> int:
    return run(["--matrix", str(matrix_file), "matrix", "update", "--index-url", url, *args])


def test_check_finds_every_lag_and_writes_nothing(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(_index()) as url:
        code = _update(matrix_file, url, "--check")
    out = capsys.readouterr().out
    assert code == 1
    assert matrix_file.read_text() == MATRIX
    # a newer patch, its companion, a Python claimed without a wheel, a missing release
    assert "pytorch 2.5.0: the index has 2.5.1" in out
    assert '-version = "2.5.0"' in out
    assert '+version = "2.5.1"' in out
    assert '+torchvision = "0.20.1"' in out
    assert '+python = ["3.11", "3.12"]' in out
    assert "pytorch 2.6.0: add the release (variants cu126)" in out
    assert '+arch_list = ["5.0", "8.0", "9.0", "9.0a"]' in out
    assert "nvidia-cudnn-cu12==9.5.1.17" in out  # evidence
    assert "tensorflow 2.15.0: the index has 2.15.1" in out
    assert "tensorflow 2.16.1: add the release" in out
    # releases older than the matrix's oldest row are left to hand curation
    assert "2.4.1" not in out


def test_an_index_without_torchvision_still_reports_the_torch_lag(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PEP 503: 404 for /simple/torchvision/ means the index does not have the project; that is
    an absent companion, not an unreachable index (exit 1 for the lag, not 3)."""
    served = _index()
    for project in ("torchvision", "torchaudio"):
        del served.projects[project]
    with serve(served) as url:
        code = _update(matrix_file, url, "--check")
        assert any(path.startswith("/simple/torchvision") for path in served.requests)
    out = capsys.readouterr().out
    assert code == 1
    assert "pytorch 2.5.0: the index has 2.5.1" in out
    assert "+torchvision" not in out  # no companion pin the index could show


def test_write_applies_the_diff_then_check_is_clean(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(_index()) as url:
        assert _update(matrix_file, url, "--write") == 0
        written = load_matrix(matrix_file)
        capsys.readouterr()
        assert _update(matrix_file, url, "--check") == 0
    assert "matrix is current" in capsys.readouterr().out
    torch = {r.version: r for r in written.pytorch}
    assert list(torch) == ["2.5.1", "2.6.0"]
    assert torch["2.5.1"].torchvision == "0.20.1"
    assert torch["2.5.1"].variants[0].arch_list == ("5.0", "8.0", "9.0")
    assert "SASS in at least half: sm_50 sm_80 sm_90" in torch["2.5.1"].variants[0].evidence
    assert "torch==2.5.1" in torch["2.5.1"].evidence
    new = torch["2.6.0"]
    assert (new.torchvision, new.torchaudio, new.pypi_default_cuda) == ("0.21.0", "2.6.0", "12.6")
    (variant,) = new.variants
    assert (variant.tag, variant.cudnn) == ("cu126", "9.5.1.17")
    assert "libtorch_cuda.so" in variant.evidence
    assert variant.verified
    tf = {r.version: r for r in written.tensorflow}
    assert tf["2.15.1"].pip == "tensorflow[and-cuda]==2.15.1"
    assert (tf["2.16.1"].cuda, tf["2.16.1"].cudnn) == ("12.3", "8.9")
    # comments and layout outside the edited rows are kept
    assert "# PyTorch rows, oldest first." in matrix_file.read_text()


def test_unreachable_index_exits_3_with_a_hint(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(Index()) as url:
        dead = url
    assert _update(matrix_file, dead, "--check") == 3
    err = capsys.readouterr().err
    assert "error: cannot fetch" in err
    assert "hint:" in err
    assert "Traceback" not in err


def test_malformed_index_page_is_reported_not_a_traceback(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = _index()
    served.broken.add("torch")
    with serve(served) as url:
        assert _update(matrix_file, url) == 3
    err = capsys.readouterr().err
    assert "is not a simple-API page" in err
    assert "Traceback" not in err


def test_check_and_write_together_is_a_usage_error(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _update(matrix_file, "http://127.0.0.1:9/simple", "--check", "--write") == 2
    assert "exclude each other" in capsys.readouterr().err


def test_an_unverified_row_the_wheel_confirms_becomes_verified(
    matrix_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        MATRIX.replace(
            'evidence = "tested build configurations table"',
            'verified = false\nnotes = "not in the tested-configurations table"',
        )
        .replace('version = "2.15.0"', 'version = "2.15.1"')
        .replace("==2.15.0", "==2.15.1")
    )
    matrix_file.write_text(text.replace('python = ["3.9", "3.10", "3.11"]', 'python = ["3.11"]'))
    with serve(_index()) as url:
        assert _update(matrix_file, url, "--write") == 0
    assert "tensorflow 2.15.1: verified from the wheel" in capsys.readouterr().out
    tf = {r.version: r for r in load_matrix(matrix_file).tensorflow}["2.15.1"]
    assert tf.verified
    assert "nvidia-cudnn-cu12==8.9.4.25" in tf.evidence
