"""`gpudoctor matrix ...` through the real command line: output, formats and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from gpudoctor.cli.app import run
from tests.support.matrices import INVALID, SMALL

M = ["--matrix", str(SMALL)]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run([*M, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_text_shows_every_table_aligned(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "matrix", "list")
    assert code == 0
    assert err == ""
    for title in (
        "CUDA releases (9)", "CUDA majors (3)", "GPU architectures (6)", "PyTorch releases (3)",
        "TensorFlow releases (2)", "Base images (7)", "MIG GPUs (3)",
    ):  # fmt: skip
        assert title in out
    cuda_block = out.split("CUDA releases (9)\n")[1].split("\n\n")[0].splitlines()
    assert cuda_block[0].split() == ["version", "label", "min", "driver", "Linux", "Windows"]
    column = cuda_block[0].index("min driver Linux")
    assert [line[column:].split()[0] for line in cuda_block[1:3]] == ["520.61.05", "530.30.02"]
    assert all(line == line.rstrip() for line in out.splitlines())
    assert "2.6.0?" in out
    assert "? = verified = false" in out


def test_list_one_framework_lists_each_build(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "matrix", "list", "--framework", "pytorch")
    assert code == 0
    assert "PyTorch builds (7)" in out
    assert "CUDA releases" not in out
    assert "2.7.1    12.8  cu128  3.9-3.13  9.7.1.26  7.5 8.0 8.6 9.0 10.0 12.0+PTX" in out


def test_list_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "matrix", "list", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["schema_version"] == 1
    for key in (
        "cuda",
        "cuda_majors",
        "architectures",
        "pytorch",
        "tensorflow",
        "base_images",
        "mig_gpus",
        "distros",
    ):
        assert isinstance(data[key], list)
        assert data[key]
    assert {"name", "package_manager", "pythons", "source"} <= set(data["distros"][0])
    assert {"version", "min_driver_linux", "min_driver_windows"} <= set(data["cuda"][0])
    assert {"compute_capability", "name", "min_cuda", "max_cuda"} <= set(data["architectures"][0])
    pytorch = data["pytorch"][0]
    assert pytorch["version"] == "2.7.1"
    assert pytorch["cuda"] == ["11.8", "12.6", "12.8"]
    assert pytorch["python"][-1] == "3.13"
    assert pytorch["cudnn"]["12.8"] == "9.7.1.26"
    assert {"version", "cuda", "cudnn", "python"} <= set(data["tensorflow"][0])
    digests = data["base_images"][3]["digests"]
    assert list(digests) == ["12.4.1-runtime-ubuntu22.04"]
    assert digests["12.4.1-runtime-ubuntu22.04"].startswith("sha256:0f0a7b4c")


def test_list_json_for_one_framework(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "matrix", "list", "--framework", "tensorflow", "--format", "json")
    data = json.loads(out)
    assert [r["version"] for r in data["tensorflow"]] == ["2.15.0", "2.12.0"]
    assert "pytorch" not in data
    assert "cuda" not in data


UNKNOWN_JAX = "unknown framework 'jax': gpudoctor knows pytorch, tensorflow"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "--framework", "jax"], UNKNOWN_JAX),
        (["list", "--format", "xml"], "--format 'xml' is not one of: text, json"),
        (["show", "pytorch==1.0"], "pytorch 1.0 is not in the matrix; nearest: 2.5.1"),
        (["show", "numpy"], "unknown framework 'numpy'"),
        (["show", "pytorh==2.5"], "unknown framework 'pytorh'"),
        (["show", "pytorch-2.5.1-cu128-py3.12-ubuntu22.04-runtime"], "no row pytorch-2.5.1-cu128"),
        (["show", "pytorch-2.5.1-cuda"], "is not a row id"),
        (["resolve", "--framework", "jax"], UNKNOWN_JAX),
        (["resolve", "--framework", "pytorch==9.9"], "pytorch 9.9 is not in the matrix"),
        (["resolve", "--framework", "pytorch", "--cuda", "12.99"], "CUDA 12.99 is not in the"),
        (["resolve", "--framework", "pytorch", "--cuda", "twelve"], "--cuda 'twelve' is not"),
    ],
)
def test_bad_input_is_one_error_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = cli(capsys, "matrix", *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert message in err
    assert "hint: " in err
    assert "Traceback" not in err


def test_missing_required_option_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "matrix", "resolve")
    assert code == 2
    assert "--framework" in err


def test_show_release_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "matrix", "show", "pytorch==2.5")
    assert code == 0
    assert out.startswith("pytorch 2.5.1\n")
    assert "  torchvision   0.20.1" in out
    assert "  12.4  cu124  9.1.0.70  yes" in out
    code, out, _ = cli(capsys, "matrix", "show", "tensorflow==2.12", "--format", "json")
    assert code == 0
    assert json.loads(out)["pip"] == "tensorflow==2.12.0"


def test_show_row_id_rebuilds_the_row(capsys: pytest.CaptureFixture[str]) -> None:
    row_id = "pytorch-2.5.1-cu121-py3.9-ubuntu20.04-devel"
    code, out, _ = cli(capsys, "matrix", "show", row_id)
    assert code == 0
    assert out.splitlines()[0] == row_id
    assert "  base image      nvidia/cuda:12.1.1-devel-ubuntu20.04" in out
    assert "  verified" not in out  # every fact read from the wheel: nothing to say
    assert "  not read" not in out
    code, out, _ = cli(capsys, "matrix", "show", "pytorch-2.6.0-cu124-py3.10-ubuntu22.04-runtime")
    assert code == 0
    assert "  verified        no" in out  # no primary source settles that it exists


def test_resolve_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "matrix", "resolve", "--framework", "pytorch", "--version", "2.5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    assert "  base image      ubuntu:22.04" in lines
    assert "  starts with     NVIDIA_REQUIRE_CUDA cuda>=12.1" in lines
    assert (
        "  install         pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
        "--index-url https://download.pytorch.org/whl/cu124"
    ) in lines


def test_resolve_json_with_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "matrix", "resolve", "--framework", "pytorch", "--version", ">=2.4",
        "--cuda", "12", "--python", "3.11", "--driver", "560.28.03",
        "--compute-capability", "8.6", "--compute-capability", "9.0", "--flavor", "devel",
        "--distro", "ubuntu22.04", "--allow-unverified", "--format", "json",
    )  # fmt: skip
    assert code == 0
    row = json.loads(out)
    assert row["id"] == "pytorch-2.7.1-cu126-py3.11-ubuntu22.04-devel"
    assert row["base_image"] == "nvidia/cuda:12.6.3-devel-ubuntu22.04"
    assert row["tier"] == "native"
    assert row["requirements"] == ["torch==2.7.1", "torchvision==0.22.1", "torchaudio==2.7.1"]


def test_resolve_no_match_lists_nearest_rows_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "matrix", "resolve", "--framework", "pytorch", "--driver", "440.33.01"
    )
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "error: no pytorch row matches --driver 440.33.01; nearest rows:"
    assert lines[1].startswith(
        "  pytorch-2.7.1-cu128-py3.12-ubuntu24.04-runtime: CUDA 12.8: driver 440.33.01 is older"
    )
    assert lines[-1].startswith("hint: relax a constraint")


def test_validate_ok_line_with_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "matrix", "validate", str(SMALL))
    assert code == 0
    assert out.startswith(f"ok: {SMALL}: schema_version 1; 9 CUDA releases, 3 CUDA majors,")
    assert "3 PyTorch releases (7 CUDA variants)" in out
    assert out.rstrip().endswith("rows marked verified = false: 1")
    code, out2, _ = cli(capsys, "matrix", "validate")  # no FILE: the --matrix one
    assert code == 0
    assert out2 == out


def test_validate_invalid_file_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    bad = INVALID / "duplicate_cuda.toml"
    code, out, err = cli(capsys, "matrix", "validate", str(bad))
    assert code == 2
    assert out == ""
    assert err.startswith(f"error: {bad}: [[cuda]] row 2: duplicate version '12.4.1'")


def test_global_matrix_option_reaches_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    code = run(["--matrix", str(INVALID / "missing_source.toml"), "matrix", "list"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "missing key 'source'" in err
    code = run(["--matrix", "/nonexistent/m.toml", "matrix", "resolve", "--framework", "pytorch"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "cannot read matrix file /nonexistent/m.toml" in err


@pytest.mark.parametrize("sub", ["list", "show", "resolve", "validate"])
def test_help_teaches_with_examples(capsys: pytest.CaptureFixture[str], sub: str) -> None:
    code = run(["matrix", sub, "--help"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert f"gpudoctor matrix {sub}" in out


def test_real_gpudoctor_script() -> None:
    script = shutil.which("gpudoctor") or sys.executable
    prefix = [script] if script.endswith("gpudoctor") else [script, "-m", "gpudoctor"]
    done = subprocess.run(
        [*prefix, *M, "matrix", "resolve", "--framework", "tensorflow", "--format", "json"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["id"] == "tensorflow-2.15.0-cu122-py3.11-ubuntu22.04-runtime"
    bad = subprocess.run(
        [*prefix, "matrix", "validate", str(INVALID / "toml_syntax.toml")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2
    assert "not valid TOML" in bad.stderr
    assert "(at line 7, column 28)" in bad.stderr
    assert "Traceback" not in bad.stderr
