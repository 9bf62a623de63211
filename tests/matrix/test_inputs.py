"""The shared parsing of --framework/--version/--cuda and the one wording of each mistake."""

from __future__ import annotations

import pytest

from gpudoctor.cli.app import run
from gpudoctor.errors import UsageError
from gpudoctor.matrix import inputs
from gpudoctor.matrix.load import load_matrix


def test_nearest_is_by_version_order_not_newest() -> None:
    cudas = ["11.8", "12.1", "12.4", "12.6", "12.8", "12.9", "13.0"]
    assert inputs.nearest("12.99", cudas) == ["12.9", "13.0", "12.8"]
    assert inputs.nearest("12.5", cudas) == ["12.4", "12.6", "12.1"]
    assert inputs.nearest("99", cudas) == ["13.0", "12.9", "12.8"]
    assert inputs.nearest("1.0", cudas) == ["11.8", "12.1", "12.4"]


def test_framework_and_version_merges_or_refuses() -> None:
    assert inputs.framework_and_version("torch==2.5", None) == ("pytorch", "2.5")
    assert inputs.framework_and_version("pytorch", ">=2.4") == ("pytorch", ">=2.4")
    assert inputs.framework_and_version("pytorch==2.5", "2.5") == ("pytorch", "2.5")
    with pytest.raises(UsageError, match="name different versions"):
        inputs.framework_and_version("pytorch==2.5", "2.4")


def test_unknown_framework_suggests_the_nearest_name() -> None:
    with pytest.raises(UsageError) as caught:
        inputs.parse_framework("pytorh==2.5")
    assert caught.value.message == "unknown framework 'pytorh': gpudoctor knows pytorch, tensorflow"
    assert caught.value.hint is not None
    assert caught.value.hint.startswith("did you mean pytorch?")


def test_check_asked_names_the_nearest_releases() -> None:
    matrix = load_matrix()
    with pytest.raises(UsageError, match=r"CUDA 12\.99 is not in the matrix; nearest: 12\.9, 13"):
        inputs.check_asked(matrix, None, None, "12.99")
    inputs.check_asked(matrix, "pytorch", "2.5", "12.4")  # known: no error
    inputs.check_asked(matrix, "pytorch", ">=9", None)  # a specifier: resolve explains


# The same mistake gets the same words, and exit 2, in every command that takes it.
_SAME = [
    (["--framework", "pytorch==9.9"], "error: pytorch 9.9 is not in the matrix; nearest: "),
    (["--framework", "pytorch", "--cuda", "12.99"], "error: CUDA 12.99 is not in the matrix"),
    (["--framework", "pytorh"], "error: unknown framework 'pytorh': gpudoctor knows"),
]


@pytest.mark.parametrize(("args", "first_line"), _SAME)
@pytest.mark.parametrize(
    "command",
    [["check", "--from", "tests/data/hosts/no-gpu-toolkit-only.json"], ["build", "--dry-run"],
     ["render"], ["matrix", "resolve"]],
)  # fmt: skip
def test_same_mistake_same_words_everywhere(
    capsys: pytest.CaptureFixture[str], command: list[str], args: list[str], first_line: str
) -> None:
    code = run([*command, *args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(first_line)
    assert "\nhint: " in err


def test_check_rejects_unknown_cuda_before_judging(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", "--cuda", "12.99", "--from", "tests/data/hosts/no-gpu-toolkit-only.json"])
    err = capsys.readouterr().err
    assert code == 2
    assert "nearest: 12.9, 13.0" in err


def test_matrix_show_lists_each_source_once(capsys: pytest.CaptureFixture[str]) -> None:
    # pytorch 2.0.1 names the same page in `source` and again in `sources`
    assert run(["matrix", "show", "pytorch==2.0.1"]) == 0
    lines = [line.split()[-1] for line in capsys.readouterr().out.splitlines() if "http" in line]
    assert lines
    assert len(lines) == len(set(lines))
