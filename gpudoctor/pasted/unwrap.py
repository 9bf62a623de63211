"""Known lines that a hard wrap broke: an email reply or `fmt` wraps at 72 columns between
words, `fold -w 80` and a narrow terminal cut at the column, inside a word or a keyword, and a
log viewer or mail client may indent the continuation. The error-line scan (errors.py) reads a
paste line by line, so a message broken over lines is missed, or named by a generic signature
that matches its first half ("CUDA error: no kernel image is available for" + "execution on the
device" is a missing kernel image, not just some CUDA error).

A paragraph (lines between blank lines) no longer than a terminal and whose lines run close to
its widest one is read as wrapped: each run of such lines is joined back, both at the column
(`fold`) and with a space (between words), and the catalogue is searched in those joined lines.
A match counts only where it crosses a line break (what lies within one line was judged there),
and it takes the lines it spans from a later, more generic signature only.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from gpudoctor.pasted.scan import KeywordLines

if TYPE_CHECKING:
    from gpudoctor.matrix.signatures import Signature

# A paste a person wrapped (a mail, a terminal window) is small; a long log is as its program
# wrote it, and joining its lines would only double the scan.
_WRAP_SCAN = 1 << 18
# Widths a hard wrap leaves: from a narrow terminal or a mail's 72 columns to a wide terminal.
_MIN_WIDTH, _MAX_WIDTH = 40, 160
# Joined together at most: a message of 500 characters at 72 columns. Runs longer than this
# are read in windows overlapping by half, so that every message lies whole in one.
_WINDOW = 8
_STRIDE = _WINDOW // 2

Owner = tuple[int, "Signature", str]  # (catalogue rank, signature, matched text)


class _Joined(NamedTuple):
    offsets: tuple[int, ...]  # where each physical line starts in the paste
    text: str  # the lines joined back
    starts: tuple[int, ...]  # where each physical line starts in `text`
    # every way the run is joined back, this one among them: (text, starts)
    variants: tuple[tuple[str, tuple[int, ...]], ...]


def claim(text: str, signatures: Sequence[Signature], owner: MutableMapping[int, Owner]) -> None:
    """Give the lines of each wrapped message to the first signature matching it across a
    break, unless an earlier (as specific) signature already owns one of them."""
    if len(text) > _WRAP_SCAN:
        return
    joined = list(_runs(text))
    if not joined:
        return
    view = "\n".join(j.text for j in joined)
    row_at: dict[int, int] = {}
    offset = 0
    for row, item in enumerate(joined):
        row_at[offset] = row
        offset += len(item.text) + 1
    lower = view.encode("ascii", "replace").decode("ascii").lower()
    lines = KeywordLines(view, lower, (k for s in signatures for k in s.keywords))
    claimed: set[int] = set()
    for rank, signature in enumerate(signatures):
        for keyword in signature.keywords:
            for start, _line in lines.lines(keyword):
                item = joined[row_at[start]]
                found = _spanning(signature, item)
                if found is None:
                    continue
                offsets, matched = found
                if claimed.intersection(offsets) or any(
                    _keeps(owner[o], rank, item, item.offsets.index(o))
                    for o in offsets
                    if o in owner
                ):
                    continue
                claimed.update(offsets)
                for o in offsets:
                    owner[o] = (rank, signature, matched)


def _keeps(held: Owner, rank: int, item: _Joined, row: int) -> bool:
    """Whether a line's owner keeps it: it comes first in the catalogue and still matches the
    line joined to its neighbours (a match that the break made, where a lookbehind or an anchor
    met the line's start or end, does not count)."""
    if held[0] > rank:
        return False
    for text, starts in item.variants:
        begin = starts[max(row - 1, 0)]
        end = starts[row + 2] if row + 2 < len(starts) else len(text)
        if held[1].compiled.search(text[begin:end]):
            return True
    return False


def _spanning(signature: Signature, item: _Joined) -> tuple[tuple[int, ...], str] | None:
    """(the physical lines it spans, their joined text) for the first match. One within a
    line counts too: its keyword may be the part broken over two lines."""
    found = signature.compiled.search(item.text)
    if found is None:
        return None
    first = bisect_right(item.starts, found.start()) - 1
    last = bisect_right(item.starts, max(found.end() - 1, found.start())) - 1
    end = item.starts[last + 1] if last + 1 < len(item.starts) else len(item.text)
    return item.offsets[first : last + 1], item.text[item.starts[first] : end].strip()


def _runs(text: str) -> Iterator[_Joined]:
    """Runs of lines that read as one wrapped message (at most _WINDOW long), joined back."""
    paragraph: list[tuple[int, str]] = []
    offset = 0
    for line in [*text.split("\n"), ""]:
        if line.strip():
            paragraph.append((offset, line))
        else:
            yield from _wrapped(paragraph)
            paragraph = []
        offset += len(line) + 1


def _wrapped(paragraph: list[tuple[int, str]]) -> Iterator[_Joined]:
    if len(paragraph) < 2:
        return
    widths = [len(line.rstrip()) for _, line in paragraph]
    width = max(widths)
    if not _MIN_WIDTH <= width <= _MAX_WIDTH:
        return
    # A line wrapped between words falls short of the width by at most the next word, which
    # may be a long path: half the width.
    full = width // 2
    begin = 0
    while begin < len(paragraph):
        end = begin
        while end + 1 < len(paragraph) and widths[end] >= full:
            end += 1
        for first in range(begin, max(begin + 1, end - _STRIDE + 1), _STRIDE):
            window = paragraph[first : min(end, first + _WINDOW - 1) + 1]
            if len(window) > 1:
                yield from _variants(window, width)
        begin = end + 1


def _variants(run: list[tuple[int, str]], width: int) -> Iterator[_Joined]:
    """The run joined back, three ways. A line filled to the width may be cut at the column
    (`fold`, a terminal, a word too long for a line) or wrapped between words that happened to
    fill it; a line ending in a hyphen may be cut there (`textwrap`); a shorter line was wrapped
    between words. So: every such cut joined without a space; only those inside a path or a
    name ("/var/lib/docker" + "/overlay2"); none. The continuation's own indent is dropped."""
    offsets = tuple(o for o, _ in run)
    indent = min(len(line) - len(line.lstrip()) for _, line in run[1:])
    joined: dict[str, tuple[int, ...]] = {}  # text -> starts, each way once
    for mode in ("cut", "token", "words"):
        parts: list[str] = []
        starts: list[int] = []
        length = 0
        for index, (_, line) in enumerate(run):
            part = line.rstrip() if index == 0 else line[indent:].rstrip()
            full = index > 0 and len(run[index - 1][1].rstrip()) >= width
            if index and not (mode != "words" and _cut(parts[-1], part, full, mode == "token")):
                part = " " + part.lstrip()
            starts.append(length + (1 if index and part.startswith(" ") else 0))
            parts.append(part)
            length += len(part)
        joined.setdefault("".join(parts), tuple(starts))
    variants = tuple(joined.items())
    for text, starts_in in joined.items():
        yield _Joined(offsets, text, starts_in, variants)


def _cut(before: str, after: str, full: bool, token: bool) -> bool:
    """Whether the text may have been cut between `before` and `after` (no space between);
    with `token`, only inside a path, a name or a number (a `/`, `.`, `_` or `-` on either
    side), not after punctuation a space follows in prose (`:`, `,`)."""
    if not before or not after or after[0].isspace():
        return False
    if before.endswith("-"):
        return True
    if not full:
        return False
    return not token or before[-1] in _INSIDE or after[0] in _INSIDE


_INSIDE = "/\\._-="  # what joins the parts of a path, a file or module name, a version
