"""Undo what pasting does to a report: Windows line endings, ANSI colours, HTML character
references, typographic quotes, Markdown quotes (`> `) and code fences, control characters and
backspaces, invisible and bidirectional-control characters, full-width and other non-ASCII
digits, CJK prose glued to a name or version; and small value readers shared by the shapes
(numbers with localised decimal commas, nvidia-smi bus ids, MiB).

Every regex here is anchored or made of bounded classes: linear time on any input.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata

from gpudoctor.pasted import records
from gpudoctor.pasted.scan import facts_head

# Every terminal escape (ECMA-48), so that none leaves a fragment glued to a value ("\x1b(B",
# which `tput sgr0` writes, left "(B550.54.15"; "\x1b7"/"\x1b8" left their digits): a control
# sequence (CSI: parameters, intermediates, final byte); a string up to its BEL or ST (OSC, as
# in an OSC 52 clipboard write, DCS, SOS, PM, APC); a character-set designation (ESC, an
# intermediate, a final byte); a two-character escape (ESC 7, ESC =, ESC M, ESC c).
_ANSI = re.compile(
    r"\x1b\[[0-?]{0,32}[ -/]{0,4}[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\n]{0,65536}(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]{1,3}[0-~]"
    r"|\x1b[0-~]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 (but tab, line feed), DEL, C1
# A terminal capture's backspace erases the character before it ("550.54.1\b15" shows
# 550.54.15; `man`'s bold is "X\bX"): a few passes undo runs of them, the rest are dropped.
_OVERSTRIKE = re.compile(r"[^\n\x08]\x08")
_OVERSTRIKE_PASSES = 8
# What no tool prints inside a value, yet a web page, a chat app or a hostile paste puts
# there: zero-width spaces and joiners, soft hyphens, a mid-text byte-order mark and the
# bidirectional marks, embeddings, overrides and isolates (which also reorder what is shown).
_INVISIBLE = (
    "\u00ad\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060"
    "\u2066\u2067\u2068\u2069\ufeff"
)
_WIDE = {
    **dict.fromkeys(map(ord, _INVISIBLE)),
    # no-break, figure, thin and ideographic spaces are spaces
    **dict.fromkeys(map(ord, "\u00a0\u2007\u2009\u202f\u3000"), " "),
    # typographic quotes, as a word processor, a forum or a chat app turns a log's quotes
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033"), '"'),
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032"), "'"),
    0xFF1A: ": ",  # a full-width colon, as CJK input methods type it between label and value
    # full-width ASCII (U+FF01 to U+FF5E: "550.54" typed in a CJK input method) is ASCII
    **{code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F) if code != 0xFF1A},
}
# Runs of those characters: a regex finds them at C speed (str.translate over a whole paste
# costs seconds per 10 MB), and only the runs found are translated.
_WIDE_RUN = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(_WIDE)) + "]+")
# Every other decimal digit (Arabic-Indic, Devanagari, ...; a digit that is not an ASCII one)
# matches `\d` in the readers: it is written as the ASCII digit it is, so that a version holds
# only what `int` and `packaging` read the same way everywhere.
_OTHER_DIGIT = re.compile(r"[^\D0-9]")
# Chinese, Japanese and Korean prose puts no space between words, so a name or version typed in
# it touches the characters around it ("在Jetson Nano上", "torch版本2.1.0+cu121"): those are
# word characters to `\b` and `\w`, and no reader would find the name. A space goes between
# such a character and an ASCII letter or digit (line numbers and everything else stay).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_ANY = re.compile(f"[{_CJK}]")
_CJK_EDGE = re.compile(f"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])")
# The two label words the readers key a value on, as Chinese, Japanese and Korean write them
# ("驱动版本535.104.05", "torch版本2.1.0"): read as the English label, so the value is found.
_CJK_LABELS = {
    "版本": "version",
    "バージョン": "version",
    "버전": "version",
    "驱动": "driver",
    "驅動": "driver",
    "ドライバー": "driver",
    "ドライバ": "driver",
    "드라이버": "driver",
}
_CJK_LABEL = re.compile("|".join(sorted(_CJK_LABELS, key=len, reverse=True)))
# An HTML character reference, as a web page, a scraped issue or a mail client writes a quote,
# an apostrophe, < > & or a no-break space of a pasted log ("no runtime for &quot;nvidia&quot;")
_ENTITY = re.compile(r"&(?:quot|apos|lt|gt|amp|nbsp|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
# A quote marker is a ">" that does not open Python's ">>> " prompt, which stays: an
# interactive session's questions are read with their answers (pairs._REPL).
# Nor is a ">=" at a line's start: a version constraint a wrap put there ("torch\n>=2.1").
_QUOTE = re.compile(r"^(?:[ \t]{0,3}>(?!>>(?: |$))(?!=))+ ?", re.MULTILINE)
_QUOTED_LINE = re.compile(r"\n[ \t]{0,3}>")  # led by a literal: a fast scan
# The HTML an issue wraps a log in (a collapsed `<details>` with its `<summary>`, `<pre>`,
# `<code>`, line breaks): no tool prints these tags around its output.
_HTML_TAG = re.compile(
    r"</?(?:details|summary|pre|code|br|p|div|kbd|samp|tt|b|i|em|strong|blockquote|h[1-6])"
    r"(?:\s[^<>\n]{0,200})?/?>",
    re.IGNORECASE,
)
_HTML_HINTS = ("</details>", "</summary>", "</pre>", "</code>", "<br>", "<br/>", "<br />", "</p>")
_SYSLOG_ESCAPE = re.compile(r"#01[12](?=[A-Za-z ])")
# A fence line: three or more backticks or tildes and an info string ("```text"). A line that
# goes on to close its own backticks ("```CUDA error 222 ...```") is inline code, not a fence:
# its text stays and only the backticks go. An info string is one word: a fence a paste glued to
# its first line ("```Allocatable:", "```$ nvidia-smi") keeps that line.
# A language's attributes may follow it ("```python title="train.py"", Pandoc's "```{.bash}").
_FENCE = re.compile(
    r"^[ \t]*(?:`{3,}|~{3,})[ \t]*(?:[^`~\s:]{0,40}(?:[ \t]{1,4}[\w-]{1,40}=[^\s`]{1,200}){0,4}"
    r"|\{[^`{}\n]{0,200}\})[ \t]*$",
    re.MULTILINE,
)


def clean(text: str) -> str:
    """The report as its tool printed it, as far as a paste allows; line numbers are kept
    (a fence line becomes an empty line), so that notes can point at the original lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # The line-anchored substitutions cost a scan of every line start: only run when needed.
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\x08" in text:
        for _ in range(_OVERSTRIKE_PASSES):
            text, erased = _OVERSTRIKE.subn("", text)
            if not erased:
                break
    if "&" in text:
        text = _ENTITY.sub(_character, text)
    text = _CONTROL.sub("", text)
    if not text.isascii():
        text = _WIDE_RUN.sub(lambda m: m.group().translate(_WIDE), text)
        text = _OTHER_DIGIT.sub(lambda m: str(unicodedata.digit(m.group(), 0)), text)
        if _CJK_ANY.search(text):  # a box-drawn table or an emoji costs no pass
            text = _CJK_LABEL.sub(_cjk_label, text)
            text = _CJK_EDGE.sub(" ", text)
    if text.lstrip(" \t").startswith(">") or _QUOTED_LINE.search(text):
        text = _QUOTE.sub("", text)
    text = _without_html(text)
    if "#01" in text:
        # rsyslog writes a message's own line breaks and tabs as "#012" and "#011": the
        # message becomes one line again (joined by a space, so line numbers stay).
        text = _SYSLOG_ESCAPE.sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("", text).replace("```", "")
    if _JSON_DOCUMENT.match(text):
        # the fact readers read a long paste's head; the known error lines are found in the
        # rest as written (pasted/errors.py reads a record's message itself)
        head = facts_head(text)
        cut = len(text) if head is text else head.rfind("\n") + 1  # whole lines only
        text = _unquoted_json(text[:cut]) + text[cut:]
    if "**" in text:
        # Markdown bold ("- **Driver:** 580.82.09") sits between a label and its value; it is
        # never part of what a tool printed, and the fact readers expect "label: value".
        text = text.replace("**", "")
    return text


def _without_html(text: str) -> str:
    """The paste without an issue's HTML tags, where it holds one of HTML's own (a closing tag,
    a line break): a template's "<b>" in a build log stays."""
    if "</" not in text and "<br" not in text:
        return text
    lowered = text.lower()
    return _HTML_TAG.sub("", text) if any(h in lowered for h in _HTML_HINTS) else text


def _character(found: re.Match[str]) -> str:
    """The character an HTML reference stands for; one that is not printable (a line break, a
    control character) or no character at all keeps its reference, so that line numbers stay."""
    character = html.unescape(found.group())
    if character == "\u00a0":
        return " "
    readable = len(character) == 1 and character.isprintable() and character != "\ufffd"
    return character if readable else found.group()


def _cjk_label(found: re.Match[str]) -> str:
    """The English label, with a space on each side that does not already have one."""
    text, start, end = found.string, found.start(), found.end()
    before = " " if start > 0 and not text[start - 1].isspace() else ""
    # a label right after it ("驱动版本") brings its own space
    after = " " if end < len(text) and not text[end].isspace() else ""
    if after and _CJK_LABEL.match(text, end):
        after = ""
    return f"{before}{_CJK_LABELS[found.group()]}{after}"


# A JSON document (`kubectl get -o json`, `docker inspect`, a tool's JSON output): an object,
# or an array of objects or strings, possibly after blank lines.
_JSON_DOCUMENT = re.compile(r"\s{0,200}(?:\{|\[\s{0,200}[{\"\]])")
# One member on a line of a pretty-printed document: "key": value, (a string, a number, a
# literal, or the object or array it opens); and one string of an array on a line.
_JSON_MEMBER = re.compile(
    r'([ \t]{0,64})"((?:[^"\\\n]|\\.){1,200})":[ \t]{0,4}'
    r'("(?:[^"\\\n]|\\.){0,4000}"|-?\d[\d.eE+-]{0,40}|true|false|null|\{|\[)[ \t]{0,4},?[ \t]{0,4}$'
)
_DOCKER_LOG = re.compile(r'\{"log": ?"')  # a line of Docker's json-file log
_JSON_STRING = re.compile(r'([ \t]{0,64})("(?:[^"\\\n]|\\.){0,4000}")[ \t]{0,4},?[ \t]{0,4}$')


def _unquoted_json(text: str) -> str:
    """Each member of a pretty-printed JSON document as `key: value` (a string value decoded),
    each string of an array as the string, at YAML's depth: the readers read what YAML and the
    tools print. Docker's json-file log is read as the lines the container printed (one that
    ran nvidia-smi holds the table); other structured logs keep their fields (a signature may
    read them), and errors.py reads their messages."""
    lines = text.split("\n")
    if _DOCKER_LOG.match(text.lstrip()):
        for index, line in enumerate(lines):
            if _DOCKER_LOG.match(line):
                lines[index] = records.record(line) or line
        return "\n".join(lines)
    for index, line in enumerate(lines):
        if '"' not in line:
            continue
        member = _JSON_MEMBER.match(line)
        if member is not None:
            indent, key, value = member.groups()
            name = _json_string('"' + key + '"')
            shown = "" if value in ("{", "[") else f" {_json_string(value)}"
            lines[index] = f"{_half(indent)}{name}:{shown}"
            continue
        item = _JSON_STRING.match(line)
        if item is not None:
            lines[index] = _half(item.group(1)) + _json_string(item.group(2))
    return "\n".join(lines)


def _half(indent: str) -> str:
    """JSON's indent (4 spaces a level, arrays a level too) as deep as YAML's (2 a level), the
    depth the readers of `-o yaml` and `describe` look for keys at."""
    return " " * (len(indent.expandtabs(4)) // 2)


def _json_string(value: str) -> str:
    """A JSON string's text (a number or literal as written); as written when it is not one."""
    if not value.startswith('"'):
        return value
    if "\\" not in value:
        return value[1:-1]
    try:
        decoded = json.loads(value)
    except ValueError:
        return value[1:-1]
    # a decoded line break would split the line: the report keeps its line numbers
    return decoded.replace("\n", " ").replace("\r", " ") if isinstance(decoded, str) else value


_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def number(text: str | None) -> float | None:
    """The first number in `text`; a decimal comma (nvidia-smi under a German locale) reads as a
    point. None when there is none."""
    if text is None:
        return None
    found = _NUMBER.search(text)
    return float(found.group(0).replace(",", ".")) if found else None


def integer(text: str | None) -> int | None:
    value = number(text)
    return int(value) if value is not None else None


def mib_bytes(text: str | None) -> int | None:
    """ "24564 MiB" -> bytes; only MiB, the unit nvidia-smi prints."""
    if text is None or "mib" not in text.lower():
        return None
    value = number(text)
    return int(value * 2**20) if value is not None else None


_BUS_ID = re.compile(
    r"^(?:[0-9A-Fa-f]{4})?([0-9A-Fa-f]{4}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.(\d)$"
)


def bus_id(text: str | None) -> str | None:
    """nvidia-smi's "00000000:3B:00.0" in sysfs form, "0000:3b:00.0" (as GpuFacts keeps it)."""
    found = _BUS_ID.match((text or "").strip())
    if not found:
        return None
    domain, bus, dev, fn = found.groups()
    return f"{domain}:{bus}:{dev}.{fn}".lower()


def version_text(text: str | None) -> str | None:
    """A dotted version as printed ("12,4" under a decimal-comma locale reads "12.4")."""
    found = re.match(r"\s*(\d+(?:[.,]\d+){0,3})", text or "")
    return found.group(1).replace(",", ".") if found else None


def on_off(text: str | None) -> bool | None:
    value = (text or "").strip().lower()
    if value in ("on", "enabled", "enable", "yes", "true"):
        return True
    if value in ("off", "disabled", "disable", "no", "false"):
        return False
    return None
