"""matrices/cuda_errors.toml: generated from the installed CUDA toolkit, read by the one
data-file reader, and the lookup that names the code a "CUDA error ..." line states."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.errors import MatrixError
from gpudoctor.matrix.cuda_errors import (
    cuda_errors_path,
    describe,
    load_cuda_errors,
    parse_cuda_errors,
)

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path("/usr/local/cuda")

GOOD = """schema_version = 1

[[part]]
name = "program"
fix = "find the failing call"

[[error]]
api = "runtime"
name = "cudaErrorIllegalAddress"
number = 700
text = "an illegal memory access was encountered"
meaning = "The device encountered a load or store instruction on an invalid memory address."
part = "program"
source = "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
"""


def test_the_shipped_catalogue_holds_both_apis_in_the_toolkits_words() -> None:
    catalogue = load_cuda_errors()
    by_name = {e.name: e for e in catalogue.errors}
    assert by_name["cudaErrorIllegalAddress"].number == 700
    assert by_name["cudaErrorIllegalAddress"].text == "an illegal memory access was encountered"
    assert by_name["CUDA_ERROR_NO_BINARY_FOR_GPU"].number == 209
    assert by_name["cudaErrorInsufficientDriver"].part == "driver"
    assert by_name["CUDA_ERROR_ECC_UNCORRECTABLE"].part == "device"
    assert {e.api for e in catalogue.errors} == {"runtime", "driver"}
    assert all(e.meaning and e.source for e in catalogue.errors)
    assert {p.name for p in catalogue.parts} == {e.part for e in catalogue.errors}


@pytest.mark.skipif(
    not (TOOLKIT / "include" / "driver_types.h").is_file()
    or not list((TOOLKIT / "lib64").glob("libcudart.so.*")),
    reason="no CUDA toolkit at /usr/local/cuda to regenerate the file from",
)
def test_the_committed_file_is_what_the_installed_toolkit_gives() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_cuda_errors.py")
    assert spec is not None
    assert spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_cuda_errors"] = gen
    spec.loader.exec_module(gen)
    assert gen.render(TOOLKIT) == cuda_errors_path().read_text(encoding="utf-8"), (
        "run `python scripts/gen_cuda_errors.py > matrices/cuda_errors.toml`"
    )


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("CUDA error: an illegal memory access was encountered", "cudaErrorIllegalAddress"),
        # the message wins over the number: CUDA 8's 59 is today's 710
        ("cuda runtime error (59) : device-side assert triggered at x.cu:26", "cudaErrorAssert"),
        ("CUDA failure 100: no CUDA-capable device is detected ; GPU=0", "cudaErrorNoDevice"),
        ("failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error", "CUDA_ERROR_UNKNOWN"),
        ("CUDA error at helper.cu:12 code=700(cudaErrorIllegalAddress)", "cudaErrorIllegalAddress"),
        ("CUDA error: unspecified launch failure", "cudaErrorLaunchFailure"),
        ("GPUassert: misaligned address kernel.cu 20", "cudaErrorMisalignedAddress"),
        ("CUDA error 999", "cudaErrorUnknown"),
        # a driver API call numbers CUresult: TensorFlow's generic words lose to the number
        ("failed call to cuInit: UNKNOWN ERROR (303)", "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"),
        # TensorRT numbers its own error ("Error Code 1") and quotes CUDA's message
        ("Error Code 1: Cuda Runtime (out of memory)", "cudaErrorMemoryAllocation"),
        (
            "Triton Error [CUDA]: an illegal memory access was encountered",
            "cudaErrorIllegalAddress",
        ),
    ],
)
def test_describe_names_the_code_a_line_states(said: str, name: str) -> None:
    found = describe(said)
    assert found is not None
    assert found.name == name


def test_a_message_no_header_lists_is_no_code() -> None:
    assert describe("CUDA error: the model did not converge") is None
    assert describe("Error Code 1: Cuda Runtime (the model did not converge)") is None


def test_the_longest_message_wins() -> None:
    found = describe("CUDA error: unspecified launch failure in prior launch")
    assert found is not None
    assert found.name == "cudaErrorPriorLaunchFailure"


def test_every_problem_is_named_by_row_and_key(tmp_path: Path) -> None:
    path = tmp_path / "cuda_errors.toml"
    bad = GOOD.replace('part = "program"', 'part = "gpu"').replace("number = 700", "number = -1")
    with pytest.raises(MatrixError) as caught:
        parse_cuda_errors(bad, path)
    said = str(caught.value)
    assert "[[error]] row 1 (name \"cudaErrorIllegalAddress\"): key 'number'" in said
    assert "[[error]] row 1 (name \"cudaErrorIllegalAddress\"): key 'part'" in said


def test_a_part_without_its_row_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MatrixError, match="'device' is not a \\[\\[part\\]\\] row's name"):
        parse_cuda_errors(GOOD.replace('part = "program"', 'part = "device"'), tmp_path / "c.toml")


def test_a_name_listed_twice_is_refused(tmp_path: Path) -> None:
    twice = GOOD + "\n[[error]]" + GOOD.split("[[error]]")[1]
    with pytest.raises(MatrixError, match="listed twice"):
        parse_cuda_errors(twice, tmp_path / "cuda_errors.toml")


def test_matrix_validate_checks_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["matrix", "validate", str(cuda_errors_path())]) == 0
    assert "CUDA error codes" in capsys.readouterr().out
