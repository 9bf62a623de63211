"""Many literal needles in a long text in one regex pass: neutral (the paste reader finds its
keyword lines with it, the redaction rule its secret names).

A `str.find` pass per needle costs a few milliseconds per needle on a 10 MB text, and a plain
alternation of the needles is slower still: Python's regex engine would stop at every position
whose character starts any needle (most letters). Here each needle is matched from a "pivot",
one of its characters that is rare in this text (counted on a sample), and checked backwards from
there by a lookbehind, so the pattern starts with a few rare characters and the engine skips, in
C, every position that holds none of them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

SAMPLE = 1 << 15  # characters counted at the start, middle and end of a long text


def any_needle(lower: str, needles: Sequence[str], *, to_line_end: bool = False) -> re.Pattern[str]:
    """A pattern matching any of `needles` in `lower` (which the pivots are chosen for); with
    `to_line_end`, each match runs on to the end of its line (one match per line holding any)."""
    return pattern(pivots(tuple(needles), Counter(sample(lower))), to_line_end=to_line_end)


def sample(lower: str) -> str:
    middle = len(lower) // 2
    return lower[:SAMPLE] + lower[middle : middle + SAMPLE] + lower[-SAMPLE:]


def pivots(needles: tuple[str, ...], counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    """(needle, index of its pivot character) for each needle: a few characters, rare in the
    sample, that every needle holds one of (greedy weighted cover: the character holding the
    most needles left per occurrence in the sample, until each needle holds a chosen one)."""
    left = set(needles)
    chosen: set[str] = set()
    while left:
        holding = Counter(ch for word in left for ch in set(word))
        best = max(holding, key=lambda ch: (holding[ch] / (counts[ch] + 1), ch))
        chosen.add(best)
        left = {word for word in left if best not in word}
    out = []
    for word in needles:
        pivot = min((ch for ch in set(word) if ch in chosen), key=lambda ch: (counts[ch], ch))
        out.append((word, word.index(pivot)))
    return tuple(out)


@lru_cache(maxsize=8)  # a text of the same kind picks the same pivots
def pattern(pivots: tuple[tuple[str, int], ...], *, to_line_end: bool = False) -> re.Pattern[str]:
    """Any needle, matched from its pivot: the rest of it, then what comes before the pivot by a
    lookbehind over the whole needle (its prefix, then any character as many times as the pivot
    and the rest took)."""
    by_pivot: dict[str, list[str]] = {}
    for word, at in pivots:
        rest = re.escape(word[at + 1 :])
        if at:
            rest += f"(?<={re.escape(word[:at])}.{{{len(word) - at}}})"
        by_pivot.setdefault(word[at], []).append(rest)
    branches = (
        re.escape(ch) + "(?:" + "|".join(sorted(rests)) + ")" for ch, rests in by_pivot.items()
    )
    return re.compile("(?:" + "|".join(branches) + ")" + ("[^\n]*" if to_line_end else ""))
