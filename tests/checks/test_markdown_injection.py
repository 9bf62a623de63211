"""Attack tests for the two outputs that become web pages (the markdown reply to an issue and
the GitHub step summary): report text in any field opens no link, autolink, image, raw HTML,
entity or mention, and cannot break the table it sits in."""

from __future__ import annotations

import re

import pytest

from gpudoctor.checks import CheckRun
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.report.github import render_step_summary
from gpudoctor.report.markdown import escape, inert, render_markdown

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<!-- hidden --> <details open>",
    "[click here](https://evil.example/steal)",
    "![pixel](https://evil.example/p.png)",
    "<https://evil.example/auto>",
    "see https://evil.example/x or http://evil.example",
    "visit www.evil.example today",
    "mail evil@example.com or ping @maintainer",
    "&#x3C;img src=x&#x3E; &lt;b&gt;",
    "[ref]: https://evil.example/defined",
    "| broken | table |",
    "`code` then `a|b`",
    "line one\nline two\r\n# heading",
]
# Our own markup: the summary's <sub> footer.
_OWN_HTML = re.compile(r"</?sub>")


def _run(text: str) -> CheckRun:
    finding = Finding(
        code="gpu-too-old",
        severity=Severity.ERROR,
        area="gpu",
        title=f"title {text}",
        detail=f"detail {text}",
        subject=f"GPU {text}",
        fix=f"run `nvidia-smi` then {text}",
    )
    return CheckRun(findings=(finding,), headlines={"gpu": f"headline {text}"})


def _assert_inert(page: str) -> None:
    page = _OWN_HTML.sub("", page)
    assert not re.search(r"(?<!\\)<", page), page  # no raw HTML, comment or autolink
    assert not re.search(r"(?<!\\)\]\(", page), page  # no link or image
    assert not re.search(r"(?<!\\)\]:", page), page  # no link reference definition
    assert "://" not in page, page  # no bare URL to autolink
    assert not re.search(r"(?i)www\.", page), page
    assert not re.search(r"@[A-Za-z0-9]", page), page  # no mention, no email autolink
    assert not re.search(r"(?<!\\)&#?\w+;", page), page  # no character reference


@pytest.mark.parametrize("text", PAYLOADS)
def test_report_text_is_inert_in_the_markdown_reply(text: str) -> None:
    _assert_inert(render_markdown(_run(text), HostFacts()))


@pytest.mark.parametrize("text", PAYLOADS)
def test_report_text_is_inert_in_the_step_summary(text: str) -> None:
    summary = render_step_summary(_run(text))
    _assert_inert(summary)
    rows = [line for line in summary.splitlines() if line.startswith("| ")]
    header = rows[0]
    cells = len(re.findall(r"(?<!\\)\|", header))
    for row in rows[1:]:
        assert len(re.findall(r"(?<!\\)\|", row)) == cells, row  # no extra column


def test_code_spans_of_a_fix_are_kept_and_the_rest_is_escaped() -> None:
    assert inert("run `pip install torch==2.5` now") == "run `pip install torch==2.5` now"
    assert inert("`a|b`", table=True) == "`a\\|b`"
    assert escape("a_b *c* <d>") == "a\\_b \\*c\\* \\<d\\>"
    assert "\u200b" in escape("https://x.example")
