"""Figures and names the docs quote hold for the code and matrix as they are: every row id
quoted exists, counts of images, files and matrix rows match, and the README's version ranges
are the matrix's. When one fails, update the doc (or re-take the benchmark) in the same change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.builder.images import render_images
from gpudoctor.cli.matrix_show import show_row
from gpudoctor.compat.resolve import all_rows
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import templates_dir

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", ROOT / "bench" / "README.md", *(ROOT / "docs").glob("*.md")])
ROW_ID = re.compile(
    r"\b(?:pytorch|tensorflow)-\d[\d.]*-cu\d+-py3\.\d+-[a-z]+\d[\d.]*\d-(?:runtime|devel)\b"
)
ELIDED_ID = re.compile(r"\b(?:pytorch|tensorflow)-\d[\d.]*-cu\d+-\S*…")


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_row_id_quoted_exists(doc: Path, matrix: Matrix) -> None:
    text = _text(doc)
    assert not ELIDED_ID.findall(text), "quote row ids whole, so this test can check them"
    for row_id in sorted(set(ROW_ID.findall(text))):
        show_row(matrix, row_id, "text")  # NoMatchingRow names the missing id


def test_image_counts_quoted_are_the_rendered_ones(matrix: Matrix) -> None:
    images = len(all_rows(matrix))
    quoted = {
        (doc.name, int(n))
        for doc in (ROOT / "docs" / "images.md", ROOT / "bench" / "README.md")
        for n in re.findall(r"(?<!to )\b(\d+) (?:images|Dockerfiles|supported rows)\b", _text(doc))
    }
    assert quoted
    assert {n for _, n in quoted} == {images}, sorted(quoted)


def test_file_count_quoted_is_what_render_all_writes(matrix: Matrix) -> None:
    files = len(render_images(matrix, templates_dir(), registry=None, context_root="images").files)
    quoted = [int(n) for n in re.findall(r"\((\d+) files\)", _text(ROOT / "bench" / "README.md"))]
    assert quoted == [files]


def test_matrix_size_quoted_in_bench_is_the_shipped_matrix(matrix: Matrix) -> None:
    text = _text(ROOT / "bench" / "README.md")
    match = re.search(
        r"(\d+) CUDA releases, (\d+) PyTorch releases \((\d+) variants\) and\s+(\d+)\s+"
        r"TensorFlow releases",
        text,
    )
    assert match is not None
    variants = sum(len(r.variants) for r in matrix.pytorch)
    assert tuple(int(g) for g in match.groups()) == (
        len(matrix.cuda), len(matrix.pytorch), variants, len(matrix.tensorflow)
    )  # fmt: skip


def test_readme_version_ranges_are_the_matrix(matrix: Matrix) -> None:
    def span(versions: list[str]) -> str:
        keys = sorted(tuple(int(p) for p in v.split(".")[:2]) for v in versions)
        return f"{keys[0][0]}.{keys[0][1]}–{keys[-1][0]}.{keys[-1][1]}"  # noqa: RUF001 - the README writes ranges with an en dash

    text = _text(ROOT / "README.md")
    assert f"PyTorch {span([r.version for r in matrix.pytorch])}" in text
    assert f"TensorFlow {span([r.version for r in matrix.tensorflow])}" in text
    cuda = span([c.version for c in matrix.cuda])
    assert f"CUDA {cuda.rsplit('.', 1)[0]}.x" in text or f"CUDA {cuda}" in text


# A path of this repository, as docs and docstrings name it: from the top ("gpudoctor/facts.py",
# "tests/support/golden.py") or inside the package ("checks/catalogue.py").
_OWN_PATH = re.compile(
    r"(?<![\w./-])((?:gpudoctor|tests|scripts|bench|templates|builder|checks|cli|compat|"
    r"exporter|matrix|pasted|probes|report|wheels)/[\w/-]*\w\.py)\b"
)


@pytest.mark.parametrize(
    "path",
    [*DOCS, *sorted((ROOT / "gpudoctor").rglob("*.py"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_file_of_this_repository_named_exists(path: Path) -> None:
    """A module renamed or moved leaves no doc or docstring naming the old file."""
    missing = [
        name
        for name in sorted(set(_OWN_PATH.findall(_text(path))))
        if not (ROOT / name).exists() and not (ROOT / "gpudoctor" / name).exists()
    ]
    assert not missing, f"{path.relative_to(ROOT)} names files that do not exist: {missing}"


_MILLISECONDS = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs)\b")


def test_no_measured_figure_in_code_comments() -> None:
    """Start-up and run-time figures live in bench/README.md, re-taken with bench/; a figure
    copied into a comment or docstring goes stale with the next measurement."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "gpudoctor").rglob("*.py"))
        for number, line in enumerate(_text(path).splitlines(), 1)
        if _MILLISECONDS.search(line)
    ]
    assert not found, "\n".join(found)
