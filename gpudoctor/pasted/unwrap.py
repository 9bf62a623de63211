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

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from gpudoctor.pasted.scan import KeywordLines, ascii_lower

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
    lines = KeywordLines(view, ascii_lower(view), (k for s in signatures for k in s.keywords))
    claimed: set[int] = set()
    for rank, signature in enumerate(signatures):
        for keyword in signature.keywords:
            for start, _line in lines.lines(keyword):
                item = joined[row_at[start]]
                found = _spanning(signature, item)
                if found is None:
                    continue
                first, last = found
                rows = range(first, last + 1)
                if claimed.intersection(item.offsets[first : last + 1]) or any(
                    _keeps(owner[item.offsets[r]], rank, item, r)
                    for r in rows
                    if item.offsets[r] in owner and owner[item.offsets[r]][0] != rank
                ):
                    continue
                # The lines around the match that are the same message are its too: those
                # whose owner matched only because of the break, and, where the match itself
                # crosses a break (so the lines are one message), those of a later, more
                # generic entry whose match runs on into it ("UserWarning: ..." before a
                # specific warning).
                span = (first, last)
                first = _reach(owner, rank, item, span, back=True)
                last = _reach(owner, rank, item, span, back=False)
                matched = item.text[item.starts[first] : _end(item.starts, last + 1, item.text)]
                matched = matched.strip()
                claimed.update(item.offsets[first : last + 1])
                for o in item.offsets[first : last + 1]:
                    owner[o] = (rank, signature, matched)


def _reach(
    owner: Mapping[int, Owner], rank: int, item: _Joined, span: tuple[int, int], *, back: bool
) -> int:
    """The farthest line before (`back`) or after the match's lines `span` whose owner yields
    to it, past lines nobody owns; the span's end on that side when none does."""
    rows = range(span[0] - 1, -1, -1) if back else range(span[1] + 1, len(item.offsets))
    reached = span[0] if back else span[1]
    for other in rows:
        held = owner.get(item.offsets[other])
        if held is None:
            continue
        if held[0] == rank or (
            _holds(held, item, other)
            and not (span[1] > span[0] and held[0] > rank and _runs_on(held, item, other, back))
        ):
            break
        reached = other
    return reached


def _runs_on(held: Owner, item: _Joined, row: int, back: bool) -> bool:
    """Whether the owner's match at `row` runs on into the next line toward the match."""
    toward = row + 1 if back else row - 1
    for found in held[1].compiled.finditer(item.text):
        first, last = _rows(item, found.start(), found.end(), 0)
        if first <= row <= last and first <= toward <= last:
            return True
    return False


_NUMBER = re.compile(r"\d{1,20}")


def _continues(length: int, after: str, width: int, full: int) -> bool:
    """Whether a line of `length` may go on in the next: it runs close to the width, or the
    next line's first word would not have fitted after it (a wrap puts a long word, a path,
    on a line of its own)."""
    word = after.split(maxsplit=1)[:1]
    return length >= full or (bool(word) and length + 1 + len(word[0]) > width)


def _new_record(before: str, after: str) -> bool:
    """Whether `after` starts a log record of its own: it begins with the prefix `before`
    begins with ("node1:1234:1250 [0] NCCL", "NVRM:", "E0412 10:11:12"), numbers aside."""
    first, then = before.split(maxsplit=1)[:1], after.split(maxsplit=1)[:1]
    if not first or not then:
        return False
    if first == then:
        return True
    prefix = any(c.isdecimal() or c in ":[]" for c in first[0])
    return prefix and _NUMBER.sub("0", first[0]) == _NUMBER.sub("0", then[0])


def _keeps(held: Owner, rank: int, item: _Joined, row: int) -> bool:
    """Whether a line's owner keeps it from a match: it comes first in the catalogue and still
    holds once the line is joined to its neighbours."""
    return held[0] <= rank and _holds(held, item, row)


def _holds(held: Owner, item: _Joined, row: int) -> bool:
    """Whether the owner still matches the line joined to its neighbours. A match that the
    break made (the line alone matches, where a lookbehind or an anchor met its start or end,
    but not once joined) does not hold; a match read otherwise (over the lines after it, in
    its log record's message) is not the break's doing."""
    pattern = held[1].compiled
    alone = item.text[item.starts[row] : _end(item.starts, row + 1, item.text)].strip()
    if not pattern.search(alone):
        return True
    for text, starts in item.variants:
        if pattern.search(text[starts[max(row - 1, 0)] : _end(starts, row + 2, text)]):
            return True
    return False


def _end(starts: tuple[int, ...], row: int, text: str) -> int:
    return starts[row] if row < len(starts) else len(text)


def _spanning(signature: Signature, item: _Joined) -> tuple[int, int] | None:
    """The first and last physical line (as indexes into the run) of the first match, begun
    as late as it may: a pattern that lets any text lead its words (`^[^\n]{0,200}?NCCL WARN`)
    would otherwise take in the lines before. One within a line counts too: its keyword may
    be the part broken over two lines."""
    found = signature.compiled.search(item.text)
    if found is None:
        return None
    first, last = _rows(item, found.start(), found.end(), 0)
    for row in range(last, first, -1):
        later = signature.compiled.search(item.text[item.starts[row] :])
        if later is not None:
            return _rows(item, later.start(), later.end(), item.starts[row])
    return first, last


def _rows(item: _Joined, start: int, end: int, offset: int) -> tuple[int, int]:
    first = bisect_right(item.starts, offset + start) - 1
    last = bisect_right(item.starts, offset + max(end - 1, start)) - 1
    return first, last


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
    # may be a long path: half the width. A line that begins as the one before it does (a log
    # record's prefix) is a record of its own, not a continuation.
    full = width // 2
    begin = 0
    while begin < len(paragraph):
        end = begin
        while (
            end + 1 < len(paragraph)
            and _continues(widths[end], paragraph[end + 1][1], width, full)
            and not _new_record(paragraph[end][1], paragraph[end + 1][1])
        ):
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
