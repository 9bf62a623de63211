"""Fast finding in a big paste: literal needles found with `str.find` (C speed), then a regex
run on the few lines that hold one. A regex that must be tried at every position of a 10 MB
paste (an anchored `^` under MULTILINE, an alternation, IGNORECASE) costs seconds in Python's
engine; this keeps every shape to a handful of linear scans.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

# Enough for any real report; a paste that repeats a needle more often than this is a log, and
# its first lines are the ones that matter.
MAX_HITS = 20_000


# Facts (versions, tool outputs) are read from a long log's first FACTS_HEAD characters, where
# the environment and set-up lines are; its known error lines are looked for everywhere.
FACTS_HEAD = 2 << 20


def facts_head(text: str) -> str:
    """The part of a paste the fact readers scan: all of it, or a long log's head."""
    return text if len(text) <= FACTS_HEAD else text[:FACTS_HEAD]


@lru_cache(maxsize=2)  # every line shape of one paste asks for the same text
def ascii_lower(text: str) -> str:
    """Lower case with one character per character of `text` (str.lower may lengthen some
    non-ASCII characters, which would shift every offset after them)."""
    return text.encode("ascii", "replace").decode("ascii").lower()


def line_at(text: str, pos: int) -> tuple[int, str]:
    """(offset of the line's first character, the line) for a position in `text`."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, text[start : end if end != -1 else len(text)]


def iter_lines(haystack: str, text: str, needle: str) -> Iterator[tuple[int, str]]:
    """Each line of `text` in which `haystack` (text itself, or its ascii_lower) holds `needle`,
    in order: (line offset, line); lazily, so that a caller may stop at the first it wants."""
    pos, hits = haystack.find(needle), 0
    while pos != -1 and hits < MAX_HITS:
        start, line = line_at(text, pos)
        yield start, line
        pos, hits = haystack.find(needle, start + len(line) + 1), hits + 1


def lines_with(haystack: str, text: str, needles: Iterable[str]) -> list[tuple[int, str]]:
    """The lines holding any of the needles, each once, in order (see iter_lines)."""
    found: dict[int, str] = {}
    for needle in needles:
        for start, line in iter_lines(haystack, text, needle):
            found.setdefault(start, line)
    return sorted(found.items())


def line_starts_with(text: str, needle: str, prefix_chars: str = " \t") -> list[int]:
    """Offsets of the lines whose text begins with `needle`, after any of `prefix_chars`."""
    out = []
    pos, hits = text.find(needle), 0
    while pos != -1 and hits < MAX_HITS:
        start = text.rfind("\n", 0, pos) + 1
        if not text[start:pos].strip(prefix_chars):
            out.append(start)
        pos, hits = text.find(needle, pos + 1), hits + 1
    return out
