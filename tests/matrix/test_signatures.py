"""The signature catalogue (matrices/signatures.toml): loaded through the matrix's row reader,
every entry sourced, every pattern free of nested repeats, templates over the pattern's groups;
`gpudoctor matrix validate` checks such a file and names each problem by file, row and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.cli.app import run
from gpudoctor.errors import MatrixError
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.matrix.signatures import LAYERS, load_signatures, parse_signatures, render

GOOD = """schema_version = 1
[[signature]]
code = "demo-error"
layer = "driver"
pattern = 'demo failure \\(found (?P<cuda_int>\\d{4,6})\\)'
keywords = ["demo failure"]
examples = ["E demo failure (found 12080)"]
cause = "the driver's CUDA is {driver_cuda_from_int}"
fix = "upgrade"
source = "https://docs.nvidia.com/cuda/cuda-runtime-api/"
"""


def _parse(text: str) -> None:
    parse_signatures(text, Path("sig.toml"))


def test_the_shipped_catalogue_loads_and_every_entry_is_sourced() -> None:
    catalogue = load_signatures()
    assert len(catalogue.signatures) >= 30
    codes = [s.code for s in catalogue.signatures]
    assert len(set(codes)) == len(codes)
    layers = {s.layer for s in catalogue.signatures}
    assert {"driver", "cuda", "framework", "library", "container", "kubernetes", "multigpu"} <= (
        layers
    )
    assert layers <= set(LAYERS)
    for s in catalogue.signatures:
        assert s.source.startswith("https://"), s.code
        assert problem(s.pattern) is None, s.code
        if s.source_kind == "threads":
            assert len({s.source, *s.sources}) >= 2, s.code
        assert set(s.predicted_by) <= CATALOGUE.keys(), s.code
        assert "pip install" not in s.fix, f"{s.code}: install lines come from the model"


def test_a_good_entry_renders_its_numbers() -> None:
    catalogue = parse_signatures(GOOD, Path("sig.toml"))
    (entry,) = catalogue.signatures
    values = entry.values("E demo failure (found 12080)")
    assert values["driver_cuda_from_int"] == "12.8"
    assert render(entry.cause, values) == "the driver's CUDA is 12.8"
    assert render("{missing}", {}) == "?"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('source = "https://docs.nvidia.com/cuda/cuda-runtime-api/"\n', "missing key 'source'"),
        ("(?P<cuda_int>\\d{4,6})", "nested quantifier"),
        ("demo failure \\(", "(?:demo|demo) failure \\("),
        ("the driver's CUDA is {driver_cuda_from_int}", "{driver} is not a named group"),
        ('examples = ["E demo failure (found 12080)"]', "the pattern does not match"),
        ('keywords = ["demo failure"]', "none is in the example"),
        ('layer = "driver"', 'expected "driver" or'),
    ],
)
def test_bad_entries_are_named_by_file_row_and_key(change: str, message: str) -> None:
    replacements = {
        "(?P<cuda_int>\\d{4,6})": ("(?P<cuda_int>\\d{4,6})", "(?P<cuda_int>(?:\\d+)+)"),
        "demo failure \\(": ("demo failure \\(", "(?:demo|demo)* failure \\("),
        "the driver's CUDA is {driver_cuda_from_int}": (
            "{driver_cuda_from_int}",
            "{driver}",
        ),
        'examples = ["E demo failure (found 12080)"]': ("(found 12080)", "(found twelve)"),
        'keywords = ["demo failure"]': ('["demo failure"]', '["nothing like it"]'),
        'layer = "driver"': ('layer = "driver"', 'layer = "firmware"'),
    }
    if change in replacements:
        old, new = replacements[change]
        text = GOOD.replace(old, new)
        if change == "demo failure \\(":
            message = "a repeat over an alternation"
    else:
        text = GOOD.replace(change, "")
    with pytest.raises(MatrixError) as raised:
        _parse(text)
    assert 'sig.toml: [[signature]] row 1 (code "demo-error")' in raised.value.message
    assert message in raised.value.message


def test_threads_need_two_sources_and_install_needs_its_placeholder() -> None:
    threads = GOOD + 'source_kind = "threads"\n'
    with pytest.raises(MatrixError, match="needs two independent threads"):
        _parse(threads)
    _parse(threads + 'sources = ["https://github.com/o/r/issues/2"]\n')
    with pytest.raises(MatrixError, match="must place \\{install\\} in its fix"):
        _parse(GOOD + 'install = "torch"\n')


def test_unknown_keys_and_tables_and_duplicates_are_refused() -> None:
    with pytest.raises(MatrixError, match=r"unknown key 'sorce'.*did you mean 'source'"):
        _parse(GOOD + 'sorce = "x"\n')
    with pytest.raises(MatrixError, match="unknown top-level table 'cuda'"):
        _parse(GOOD + "[[cuda]]\nversion = 1\n")
    body = GOOD.split("\n", 1)[1]
    with pytest.raises(MatrixError, match="signature code 'demo-error' listed twice"):
        _parse(GOOD + body)
    with pytest.raises(MatrixError, match="not valid TOML"):
        _parse("[[signature]\n")


def test_matrix_validate_checks_a_signature_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shipped = Path(__file__).resolve().parents[2] / "matrices" / "signatures.toml"
    assert run(["matrix", "validate", str(shipped)]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"ok: {shipped}: ")
    assert "signatures, each with its source" in out
    bad = tmp_path / "sig.toml"
    bad.write_text(GOOD.replace('source = "https://docs.nvidia.com/cuda/cuda-runtime-api/"', ""))
    assert run(["matrix", "validate", str(bad)]) == 2
    _, err = capsys.readouterr()
    assert "missing key 'source'" in err
    assert "hint: " in err


@pytest.mark.parametrize(
    ("pattern", "refused"),
    [
        (r"(a+)+", True),
        (r"(\w*\s?)*", True),
        (r"(a|ab)*c", True),
        (r"(?:\.\d+){0,2}", True),
        (r"(a)\1", True),
        (r"(?=(a+)+)", True),
        (r"([", True),
        (r"\d+\.\d+", False),
        (r"(?:could not|unable to) load", False),
        (r"[^\n]{0,40}?x", False),
        (r"(?:ab)*", False),
        (r"sm_\d+a? is not", False),
    ],
)
def test_regex_safety_refuses_nested_and_alternated_repeats(pattern: str, refused: bool) -> None:
    assert (problem(pattern) is not None) is refused
