"""The schema is declared once: docs/matrix-format.md's key tables are generated from the
dataclasses' declarations (and fail here when they drift), and the one reader holds every table
of every data file to those declarations."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.matrix import schema
from gpudoctor.matrix.cuda_errors import CudaErrorCatalogue
from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.reader import read_table
from gpudoctor.matrix.schema_doc import DOC, main, render, row_classes
from gpudoctor.matrix.signatures import SignatureCatalogue
from gpudoctor.matrix.xid import XidCatalogue

TABLES = [
    t
    for d in (Matrix, SignatureCatalogue, XidCatalogue, CudaErrorCatalogue)
    for _, t in schema.tables(d)
]


def test_the_format_document_matches_the_declarations() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, "run: python -m gpudoctor.matrix.schema_doc"


def test_every_table_has_its_generated_block() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [name for name in row_classes() if f"<!-- schema: {name} -->" not in text]
    assert missing == []


def test_a_hand_edit_of_a_generated_table_is_drift(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    edited = text.replace("| `label` | str | yes |", "| `label` | str | no |", 1)
    assert edited != text
    assert render(edited) == text
    doc = tmp_path / "matrix-format.md"
    doc.write_text(edited)
    assert main(["--check", "--doc", str(doc)]) == 1
    assert main(["--doc", str(doc)]) == 0
    assert main(["--check", "--doc", str(doc)]) == 0
    assert doc.read_text() == text


def test_a_block_of_no_known_table_is_refused() -> None:
    with pytest.raises(ValueError, match="no such table"):
        render("<!-- schema: cudas -->\n<!-- end schema -->\n")


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_every_table_names_each_missing_required_key_and_an_unknown_one(
    table: schema.Table,
) -> None:
    problems = Problems("m.toml")
    rows = read_table({table.name: [{"colour": "red"}]}, table, problems, {})
    assert rows == ()
    text = "\n".join(problems.lines)
    assert f"m.toml: [[{table.name}]] row 1: unknown key 'colour' (valid keys: " in text
    for name, key in schema.keys(table.row):
        if key.required and key.shape != schema.ROWS:
            assert f"missing key '{name}' (expected " in text
        elif key.shape == schema.ROWS:
            assert f"missing [[{key.table}]]" in text
        else:
            assert f"missing key '{name}'" not in text


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_every_key_of_every_table_names_a_wrong_type(table: schema.Table) -> None:
    """A table (a TOML type no key takes) in each key is refused with the key named."""
    problems = Problems("m.toml")
    names = [name for name, _ in schema.keys(table.row)]
    read_table({table.name: [{name: {"x": {}} for name in names}]}, table, problems, {})
    for name, key in schema.keys(table.row):
        # a table is a digests key's type: there the tag's value is named
        said = f"key '{name}', tag 'x': " if key.shape == schema.DIGESTS else f"key '{name}': "
        assert any(
            said + "expected " in line and line.endswith("found a table") for line in problems.lines
        ), name


def test_every_shipped_data_file_goes_through_the_one_reader(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gpudoctor.cli.app import run
    from gpudoctor.resources import matrices_dir

    files = sorted(matrices_dir().glob("*.toml"))
    assert [p.name for p in files] == [
        "compat.toml",
        "cuda_errors.toml",
        "signatures.toml",
        "xid.toml",
    ]
    declared = {t.name for t in TABLES}
    for path in files:
        assert run(["matrix", "validate", str(path)]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith("ok: ")
        tables = {
            line.strip()[2:-2] for line in path.read_text().splitlines() if line.startswith("[[")
        }
        assert tables <= declared | {"pytorch.variants"}, path
