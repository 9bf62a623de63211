"""Writes the key tables of docs/matrix-format.md from the schema the dataclasses declare
(matrix/schema.py), so that the document and the loader cannot disagree.

    python -m gpudoctor.matrix.schema_doc            rewrite docs/matrix-format.md in place
    python -m gpudoctor.matrix.schema_doc --check    exit 1 when it is out of date

Each table sits between `<!-- schema: NAME -->` and `<!-- end schema -->`; the text around the
tables is written by hand. NAME is a TOML table (`cuda`, `pytorch.variants`, `signature`,
`xid`, `error`) or `provenance` / `build-provenance` for the keys rows share.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gpudoctor.matrix import schema
from gpudoctor.matrix.cuda_errors import CudaErrorCatalogue
from gpudoctor.matrix.model import BuildProvenance, Matrix, Provenance
from gpudoctor.matrix.schema import Key
from gpudoctor.matrix.signatures import SignatureCatalogue
from gpudoctor.matrix.xid import XidCatalogue

DOC = Path(__file__).resolve().parents[2] / "docs" / "matrix-format.md"
_BLOCK = re.compile(
    r"(<!-- schema: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- end schema -->)", re.S
)
_SHARED = {"provenance": Provenance, "build-provenance": BuildProvenance}


def row_classes() -> dict[str, type]:
    """Every table's row class by the name its block uses."""
    out: dict[str, type] = dict(_SHARED)
    for document in (Matrix, SignatureCatalogue, XidCatalogue, CudaErrorCatalogue):
        for _, table in schema.tables(document):
            out[table.name] = table.row
            for _, key in schema.own_keys(table.row):
                if key.row is not None:
                    out[key.table] = key.row
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _form(key: Key) -> str:
    if key.shape == schema.ROWS:
        return f"`[[{key.table}]]` tables, at least one"
    if key.shape == schema.FLAG:
        return "true or false"
    assert key.kind is not None
    if key.shape == schema.ARRAY:
        empty = "" if key.non_empty else " (may be empty)"
        return f"an array{empty}, each {key.kind.expected}"
    if key.shape == schema.DIGESTS:
        return f'a table of "TAG" = {key.kind.expected}'
    return key.kind.expected


def _meaning(key: Key) -> str:
    parts = [key.doc] if key.doc else []
    if key.example:  # as written in TOML: strings quoted, arrays and numbers as they are
        quoted = key.shape == schema.SCALAR and not key.example.startswith('"')
        parts.append(f'e.g. `"{key.example}"`' if quoted else f"e.g. `{key.example}`")
    return "; ".join(parts)


def render_table(row: type) -> str:
    """The markdown table of a row class's own keys, then one line per group of shared keys."""
    lines = ["| key | type | required | form | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, key in schema.own_keys(row):
        required = "yes" if key.required else "no"
        cells = [f"`{name}`", key.type_name, required, _form(key), _meaning(key)]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    for shared, label in ((BuildProvenance, "build provenance"), (Provenance, "provenance")):
        if row not in (shared, *_SHARED.values()) and issubclass(row, shared):
            names = ", ".join(f"`{n}`" for n, _ in schema.own_keys(shared))
            lines.append(f"| {names} | | | | the {label} keys (Conventions) |")
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    """`text` with every schema block rewritten; ValueError names a block of no known table."""
    classes = row_classes()

    def block(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in classes:
            raise ValueError(
                f"<!-- schema: {name} -->: no such table (known: {', '.join(classes)})"
            )
        return match.group(1) + render_table(classes[name]) + match.group(4)

    return _BLOCK.sub(block, text)


def main(argv: list[str]) -> int:
    path = Path(argv[argv.index("--doc") + 1]) if "--doc" in argv else DOC
    text = path.read_text(encoding="utf-8")
    fresh = render(text)
    if "--check" in argv:
        if fresh != text:
            print(
                f"{path} is out of date: run python -m gpudoctor.matrix.schema_doc", file=sys.stderr
            )
            return 1
        return 0
    path.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
