"""One regex pass for many literal needles (gpudoctor/needles.py): it finds a needle exactly
where a `str.find` per needle would, and the redaction rule's quick test keeps its answer on a
long text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor import redaction
from gpudoctor.needles import any_needle

_ALPHABET = "abcdk_-\n :"
_NEEDLE = st.text(alphabet=_ALPHABET.replace("\n", ""), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=300), needles=st.lists(_NEEDLE, min_size=1))
def test_a_match_is_found_exactly_where_a_needle_is(text: str, needles: list[str]) -> None:
    found = any_needle(text, needles).search(text)
    assert (found is not None) == any(n in text for n in needles)
    every = any_needle(text, needles)
    for match in every.finditer(text):  # each match ends a needle that starts inside the text
        assert any(text.endswith(n, 0, match.end()) for n in needles)


def test_each_match_runs_to_its_line_end_when_asked() -> None:
    text = "x\nan hf_ token here\ny\n"
    found = list(any_needle(text, ["hf_"], to_line_end=True).finditer(text))
    # one match, from the needle's pivot (a character of it) to the end of its line
    assert [m.group() for m in found] == [text[m.start() : text.index("\ny")] for m in found]
    assert len(found) == 1
    assert text.index("hf_") <= found[0].start() < text.index("hf_") + 3


def test_the_quick_secret_test_of_a_long_text_keeps_its_answer() -> None:
    log = "2025-01-01 10:00:00 INFO step 1234 loss=0.4321 lr=3e-4\n"
    long = log * (300_000 // len(log))
    assert not redaction.may_hold_secrets(long)
    for line in ("HF_TOKEN=abc", "export AWS_SECRET_ACCESS_KEY=x", "glpat-xyz", "login ok"):
        middle = len(long) // 3
        assert redaction.may_hold_secrets(long[:middle] + line + "\n" + long[middle:]), line
    # near miss: a word that only shares letters with a needle
    assert not redaction.may_hold_secrets(long + "tok en sec ret pass\n")
