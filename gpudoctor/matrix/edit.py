"""Line edits of compat.toml that keep its comments and layout: set a key in a release row or in
one of its variants, add a variant, add a release row. `matrix update` proposes these as a diff.

A block is the lines from a `[[table]]` header to the next header; a release row of `pytorch`
spans its `[[pytorch.variants]]` blocks too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\[\[(?P<table>[a-z_.]+)\]\]\s*$")


@dataclass(frozen=True)
class Block:
    table: str
    start: int  # index of the header line
    end: int  # index after the last key line (trailing blanks and comments excluded)


def blocks(lines: list[str]) -> list[Block]:
    heads = [(i, m["table"]) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    out = []
    for n, (start, table) in enumerate(heads):
        stop = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        end = stop
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        out.append(Block(table, start, end))
    return out


def value_of(lines: list[str], block: Block, key: str) -> str | None:
    pattern = re.compile(rf"^{re.escape(key)}\s*=\s*\"(?P<v>[^\"]*)\"")
    for line in lines[block.start + 1 : block.end]:
        if m := pattern.match(line):
            return m["v"]
    return None


def find_row(lines: list[str], table: str, key: str, value: str) -> Block | None:
    for block in blocks(lines):
        if block.table == table and value_of(lines, block, key) == value:
            return block
    return None


def row_extent(lines: list[str], row: Block) -> int:
    """The index after a release row, its variants included."""
    end = row.end
    for block in blocks(lines):
        if block.start <= row.start:
            continue
        if not block.table.startswith(f"{row.table}."):
            break
        end = block.end
    return end


def find_variant(lines: list[str], row: Block, key: str, value: str) -> Block | None:
    for block in blocks(lines):
        if block.start <= row.start or block.start >= row_extent(lines, row):
            continue
        if value_of(lines, block, key) == value:
            return block
    return None


def set_key(lines: list[str], block: Block, key: str, toml_value: str) -> list[str]:
    """Replace `key = ...` in a block, or add it at the block's end."""
    new = f"{key} = {toml_value}"
    pattern = re.compile(rf"^{re.escape(key)}\s*=")
    for i in range(block.start + 1, block.end):
        if pattern.match(lines[i]):
            return [*lines[:i], new, *lines[i + 1 :]]
    return [*lines[: block.end], new, *lines[block.end :]]


def insert_after(lines: list[str], index: int, block_lines: list[str]) -> list[str]:
    return [*lines[:index], "", *block_lines, *lines[index:]]
