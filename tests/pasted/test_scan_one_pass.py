"""The one-pass keyword search of a long paste (`scan.KeywordLines`) gives, for every keyword
of the signature catalogue and every needle of the facts scan, exactly the lines a `str.find`
pass per keyword gives (`scan.iter_lines`, `scan.lines_with`): on the corpus's real pastes, on
the reports of tests/data/reports and on random text built from the keywords and the
catalogue's examples, with the per-keyword cap too; and the error lines and facts a paste is
read for are the same whichever way its keywords were found."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor import needles
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted import errors, facts_scan, scan
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import KeywordLines
from tests.support.corpus import corpus_cases

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = load_signatures()
SIGNATURE_KEYWORDS = tuple(dict.fromkeys(k for s in CATALOGUE.signatures for k in s.keywords))
KEYWORDS = tuple(dict.fromkeys((*SIGNATURE_KEYWORDS, *facts_scan._NEEDLES)))
EXAMPLES = tuple(e for s in CATALOGUE.signatures for e in s.examples)


def _tuning_pastes() -> dict[str, str]:
    """The corpus's tuning part (its held-aside part is kept out of development) and the
    recorded reports."""
    module = corpus_cases()
    held = set(module.read_split()[2])
    out = {c.case_id: c.paste for c in module.load_cases() if c.case_id not in held}
    for report in sorted((ROOT / "tests" / "data" / "reports").glob("*.txt")):
        out[report.name] = report.read_text(encoding="utf-8")
    return out


PASTES = _tuning_pastes()


@contextmanager
def _one_pass_always() -> Iterator[None]:
    """The one-pass search on a paste of any length (it starts at ONE_PASS_FROM characters)."""
    with mock.patch.object(scan, "ONE_PASS_FROM", 0):
        yield


def _plain_lines_with(lower: str, text: str, needles: tuple[str, ...]) -> list[tuple[int, str]]:
    """The lines holding any needle by a `str.find` pass per needle (scan.lines_with before)."""
    found: dict[int, str] = {}
    for needle in needles:
        for start, line in scan.iter_lines(lower, text, needle):
            found.setdefault(start, line)
    return sorted(found.items())


def _assert_same_lines(text: str) -> None:
    lower = scan.ascii_lower(text)
    found = KeywordLines(text, lower, KEYWORDS)
    for keyword in KEYWORDS:
        assert found.lines(keyword) == list(scan.iter_lines(lower, text, keyword)), keyword
    for index in range(0, len(KEYWORDS), 7):  # several needles at once, as a facts rule asks
        some = KEYWORDS[index : index + 7]
        assert found.lines_with(some) == _plain_lines_with(lower, text, some), some
    # scan.lines_with (a reader's needles): in one pass from 8 needles on, case-sensitive too
    for some in (SIGNATURE_KEYWORDS[:20], facts_scan._NEEDLES[-12:]):
        assert scan.lines_with(lower, text, some) == _plain_lines_with(lower, text, some)
        assert scan.lines_with(text, text, some) == _plain_lines_with(text, text, some)


def _error_lines(text: str) -> list[tuple[str, str, int]]:
    draft = Draft()
    errors.parse(text, draft)
    return [(e.code, e.text, e.line) for e in draft.errors]


def test_corpus_and_report_pastes_give_the_same_lines() -> None:
    assert len(PASTES) > 100
    with _one_pass_always():
        for text in PASTES.values():
            _assert_same_lines(text)


def test_corpus_pastes_give_the_same_error_lines_either_way() -> None:
    named = 0
    for text in PASTES.values():
        plain = _error_lines(text)
        with _one_pass_always():
            assert _error_lines(text) == plain
        named += bool(plain)
    assert named > 50  # the comparison is over pastes that hold known lines


def test_corpus_pastes_give_the_same_facts_either_way() -> None:
    architectures = load_matrix().architectures
    for text in PASTES.values():
        plain = Draft()
        facts_scan.parse(text, plain, architectures)
        with _one_pass_always():
            once = Draft()
            facts_scan.parse(text, once, architectures)
        assert once == plain


_NOISE = st.text(alphabet='abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789:._-/="\\\n\t', max_size=80)
_CHUNK = st.one_of(
    st.sampled_from(KEYWORDS),
    st.sampled_from(EXAMPLES),
    st.sampled_from(KEYWORDS).map(str.upper),  # found case-insensitively
    st.sampled_from(KEYWORDS).map(lambda k: f"é{k}\u00e9"),  # non-ASCII beside it
    _NOISE,
)
_PASTE = st.builds(
    lambda chunks, sep, times: sep.join(chunks * times),
    st.lists(_CHUNK, max_size=40),
    st.sampled_from(["\n", " ", "\r\n", "", "\n\n"]),
    st.integers(min_value=1, max_value=4),  # a log repeats its lines
)


@settings(max_examples=100, deadline=None)
@given(_PASTE)
def test_random_text_gives_the_same_lines(text: str) -> None:
    with _one_pass_always():
        _assert_same_lines(text)


@settings(max_examples=40, deadline=None)
@given(_PASTE, st.integers(min_value=1, max_value=4))
def test_the_per_keyword_cap_is_the_same(text: str, cap: int) -> None:
    # a repeated line counts once per place it appears, as a pass per keyword counts it
    with _one_pass_always(), mock.patch.object(scan, "MAX_HITS", cap):
        _assert_same_lines(text)
        found = KeywordLines(text, scan.ascii_lower(text), KEYWORDS)
        assert all(len(found.lines(k)) <= cap for k in KEYWORDS)


@pytest.mark.parametrize(
    "text",
    [
        "no kernel image",  # the whole paste, no newline
        "x\nRuntimeError: CUDA error: no kernel image is available\n",
        "cuda error 802 cuda error 802\ncuda error\n\nerror 802\n",  # overlapping keywords
        "nvidia-smi\nnvidia-smi\nother\nnvidia-smi\n",  # a line repeated
        "undefined symbol\r\nUNDEFINED SYMBOL",  # CRLF, upper case
    ],
)
def test_edges_give_the_same_lines(text: str) -> None:
    with _one_pass_always():
        _assert_same_lines(text)
        _assert_same_lines(text * 3)


def test_a_long_paste_is_searched_in_its_keyword_lines_only() -> None:
    log = "2025-01-01 10:00:00 INFO step 1234 loss=0.4321 lr=3e-4 tokens/s=123456\n"
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    text = log * (scan.ONE_PASS_FROM // len(log) + 1) + error + "\n" + log
    found = KeywordLines(text, scan.ascii_lower(text), SIGNATURE_KEYWORDS)
    assert found._haystack == error.lower()  # one distinct line holds a keyword
    assert found.lines("no kernel image") == [(text.index(error), error)]
    assert found.lines("nvidia-smi") == []


def test_pivots_are_characters_the_paste_rarely_holds() -> None:
    # in a paste of "GPU 0: " lines, no keyword is matched from g, p, u, 0, ":" or a space
    # unless it holds nothing else
    counts = Counter("gpu 0: " * 1000)
    for word, at in needles.pivots(KEYWORDS, counts):
        if set(word) - set("gpu 0: "):
            assert word[at] not in "gpu 0: ", word


def test_an_absent_anchor_word_spares_the_keyword_search() -> None:
    found = KeywordLines("loss=0.43 step 12\n", "loss=0.43 step 12\n", KEYWORDS)
    assert found._absent("cudaerrornodevice")
    assert found._anchors == {"cuda": False}  # one search of the first word settles it
    lower = "cudaerrornodevice"
    assert not KeywordLines(lower, lower, KEYWORDS)._absent("cudaerrornodevice")
    assert not KeywordLines("anything", "anything", KEYWORDS)._absent("blas = 0")  # no anchor
