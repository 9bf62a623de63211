"""Fast finding in a big paste: literal needles found with `str.find` (C speed), then a regex
run on the few lines that hold one. A regex that must be tried at every position of a 10 MB
paste (an anchored `^` under MULTILINE, an alternation, IGNORECASE) costs seconds in Python's
engine; this keeps every shape to a handful of linear scans.

Many needles at once (the signature catalogue's ~300 keywords, the facts scan's ~120 needles):
a `str.find` pass per needle costs most of a second on a 10 MB paste. `KeywordLines` reads a
long paste in one regex pass (gpudoctor/needles.py) that finds the lines holding any needle, then
looks for each needle in those lines only, each distinct line once (a log repeats its lines, and
most lines of a long log hold none), with the same answer as a pass per needle. A short paste, or
a few needles, keep the plain passes: they cost less than building that pattern.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import islice

from gpudoctor.needles import any_needle

# Enough for any real report; a paste that repeats a needle more often than this is a log, and
# its first lines are the ones that matter.
MAX_HITS = 20_000


# Facts (versions, tool outputs) are read from a long log's first FACTS_HEAD characters, where
# the environment and set-up lines are; its known error lines are looked for everywhere.
FACTS_HEAD = 2 << 20

# The words NVIDIA's GPU names start with, as torch, NVML and the tools print them ("NVIDIA
# A100-SXM4-80GB", "Tesla V100-SXM2-32GB", "GeForce GTX 1080 Ti" of older drivers): a regular
# expression fragment, for the readers that take a GPU's name from a line by its first word.
NVIDIA_BRAND = r"(?:NVIDIA|GeForce|Tesla|Quadro|TITAN)"


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


class LineCounter:
    """The 1-based line number of each of a series of ascending offsets in one text, counting
    the newlines between one offset and the next once (a long log's lines stay linear)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._number = 1
        self._counted = 0

    def at(self, start: int) -> int:
        self._number += self._text.count("\n", self._counted, start)
        self._counted = start
        return self._number


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
    needles = tuple(needles)
    if len(needles) >= _ONE_PASS_NEEDLES and len(text) >= ONE_PASS_FROM:
        return KeywordLines(text, haystack, needles).lines_with(needles)
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


# Below this many characters a find per keyword (a few milliseconds in all) beats counting a
# sample and compiling the one-pass pattern.
ONE_PASS_FROM = 1 << 18
_ONE_PASS_NEEDLES = 8  # and fewer needles than this: a find for each costs less

# A keyword holding one of these words can only be in the text if the word is: one search for
# the word spares the searches of all the keywords holding it where it is absent.
_ANCHORS = (
    "cuda", "nvidia", "nccl", "nvml", "gpu", "error", "driver", "lib", "fail", "found",
    "version", "invalid", "memory", "available", "cannot", "kernel", "device", "support",
    "compat", "symbol", "cpu",
)  # fmt: skip

Line = tuple[int, str]  # (offset of the line's first character in the paste, the line)


class KeywordLines:
    """Each keyword's lines in `text`, found in `lower` (text itself, or its ascii_lower) on
    demand and kept: the catalogue asks for a keyword once per signature holding it and per
    pass. For a long text, the one pass described at the top of this module."""

    def __init__(self, text: str, lower: str, keywords: Iterable[str]) -> None:
        self._text = text
        self._found: dict[str, list[Line]] = {}
        self._anchors: dict[str, bool] = {}
        words = tuple(dict.fromkeys(keywords))
        if len(text) < ONE_PASS_FROM or not words or any("\n" in w for w in words):
            # the paste itself is the haystack; line i of it starts at offset i
            self._haystack = lower
            self._starts: list[int] | None = None
            self._places: list[list[int]] = []
            self._lengths: list[int] = []
            return
        # The distinct lines holding any keyword, in order of first appearance, one per line of
        # the haystack; `_places[i]` the offsets in the paste where line i appears.
        places: dict[str, list[int]] = {}
        for match in any_needle(lower, words, to_line_end=True).finditer(lower):
            start = lower.rfind("\n", 0, match.start()) + 1
            places.setdefault(lower[start : match.end()], []).append(start)
        self._haystack = "\n".join(places)
        self._places = list(places.values())
        self._lengths = [len(line) for line in places]
        self._starts = []
        offset = 0
        for length in self._lengths:
            self._starts.append(offset)
            offset += length + 1

    def lines(self, keyword: str) -> list[Line]:
        """The first `MAX_HITS` lines holding `keyword`, in order (see iter_lines)."""
        if keyword not in self._found:
            self._found[keyword] = [] if self._absent(keyword) else self._search(keyword)
        return self._found[keyword]

    def lines_with(self, keywords: Iterable[str]) -> list[Line]:
        """The lines holding any of the keywords, each once, in order (see lines_with)."""
        found: dict[int, str] = {}
        for keyword in keywords:
            for start, line in self.lines(keyword):
                found.setdefault(start, line)
        return sorted(found.items())

    def _search(self, keyword: str) -> list[Line]:
        if self._starts is None:
            return list(iter_lines(self._haystack, self._text, keyword))
        # The distinct lines holding it, then every place each appears, merged in paste order.
        # A distinct line first seen after the first MAX_HITS of them cannot be among the
        # first MAX_HITS lines, so the search stops there too.
        rows: list[int] = []
        pos = self._haystack.find(keyword)
        while pos != -1 and len(rows) < MAX_HITS:
            row = bisect_right(self._starts, pos) - 1
            rows.append(row)
            end = self._haystack.find("\n", pos)
            if end == -1:
                break
            pos = self._haystack.find(keyword, end + 1)
        if any(len(self._places[row]) > 1 for row in rows):
            # a line appears more than once: its places merged back into paste order
            order = heapq.merge(*(self._each_place(row) for row in rows))
            placed: Iterable[tuple[int, int]] = islice(order, MAX_HITS)
        else:
            placed = ((self._places[row][0], row) for row in rows)
        text, lengths = self._text, self._lengths
        return [(start, text[start : start + lengths[row]]) for start, row in placed]

    def _each_place(self, row: int) -> Iterator[tuple[int, int]]:
        return ((start, row) for start in self._places[row])

    def _absent(self, keyword: str) -> bool:
        """Whether a word the keyword holds is not in the haystack (so neither is the keyword)."""
        for anchor in _ANCHORS:
            if anchor in keyword:
                if anchor not in self._anchors:
                    self._anchors[anchor] = anchor in self._haystack
                if not self._anchors[anchor]:
                    return True
        return False


# A log written as one line (a JSON record, a paste that lost its line ends) is read around
# its needle, at the cost of a normal line.
MAX_LINE = 2000


def bounded_line(lower: str, line: str, start: int, needles: tuple[str, ...]) -> str:
    """The line, or of a longer line than MAX_LINE (a log written as one line: a JSON log
    record, a paste that lost its line ends) the MAX_LINE characters around its first needle:
    its facts are read at the cost of a normal line."""
    if len(line) <= MAX_LINE:
        return line
    end = start + len(line)
    at = min((p for p in (lower.find(n, start, end) for n in needles) if p != -1), default=start)
    begin = max(start, at - MAX_LINE // 4)
    return line[begin - start : begin - start + MAX_LINE]
