"""Every signature's examples (matrices/signatures.toml) are still named by their own code when
the paste is damaged the ways real pastes are: hard-wrapped at 72 and 80 columns (between words
as a mail client or `fmt` does, at the column as `fold -w 80` and a narrow terminal do, with and
without an indent on the continuation), inside a structured log record (Docker's json-file,
zap's and logrus's JSON, logrus's text, klog, journald), inside `kubectl describe` (a
container's last-state Message, an Events row), and quoted in Markdown or a mail reply.

One paste per damage holds every example, each in a paragraph of its own; the reader's own
line naming (errors.named_lines) says which code names each example's lines, and one
read of the paste must report every code."""

from __future__ import annotations

import html
import json
import re
import textwrap
from collections.abc import Callable

import pytest

from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted.clean import clean
from gpudoctor.pasted.dispatch import read_reports
from gpudoctor.pasted.errors import named_lines


def _fold(line: str, width: int, indent: str = "") -> str:
    """`fold -w WIDTH`: cut at the column, inside words; `indent` before each continuation."""
    out, rest = [line[:width]], line[width:]
    while rest:
        room = width - len(indent)
        out.append(indent + rest[:room])
        rest = rest[room:]
    return "\n".join(out)


def _wrap(line: str, width: int, indent: str = "") -> str:
    """A mail client's or `fmt`'s wrap: between words; a word longer than a line is cut."""
    return "\n".join(textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False))


def _go_json(record: dict[str, object]) -> str:
    """JSON as Go's encoding/json writes it (logrus, Docker): <, > and & as \\u003c..."""
    text = json.dumps(record, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _go_quoted(text: str) -> str:
    """Go's %q, as logrus's text formatter quotes a message."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


DAMAGE: dict[str, Callable[[str], str]] = {
    "as written": lambda line: line,
    "fold -w 72": lambda line: _fold(line, 72),
    "fold -w 80": lambda line: _fold(line, 80),
    "fold -w 72, indented": lambda line: _fold(line, 72, "    "),
    "fold -w 80, indented": lambda line: _fold(line, 80, "  "),
    "wrapped at 72": lambda line: _wrap(line, 72),
    "wrapped at 80": lambda line: _wrap(line, 80),
    "wrapped at 72, indented": lambda line: _wrap(line, 72, "    "),
    "wrapped at 80, indented": lambda line: _wrap(line, 80, "  "),
    "mail reply": lambda line: "\n".join(f"> {part}" for part in textwrap.wrap(line, 70)),
    "Markdown quote": lambda line: f"> {line}",
    # a scraped page or a web form: quotes, apostrophes, < > & as HTML character references
    "HTML escaped": lambda line: html.escape(line, quote=True),
    "Docker json-file": lambda line: _go_json(
        {"log": line + "\n", "stream": "stderr", "time": "2024-03-05T10:00:01.123456789Z"}
    ),
    "zap JSON": lambda line: json.dumps(
        {"level": "error", "ts": 1709632801.123, "caller": "main.go:42", "msg": line},
        separators=(",", ":"),
    ),
    "logrus JSON": lambda line: _go_json(
        {"level": "error", "msg": line, "time": "2024-03-05T10:00:01Z"}
    ),
    "logrus text": lambda line: f'time="2024-03-05T10:00:01Z" level=error msg={_go_quoted(line)}',
    "klog": lambda line: f"E0412 10:11:12.123456       1 plugin.go:12] {line}",
    "CRI log file": lambda line: f"2024-03-05T10:00:01.123456789Z stderr F {line}",
    "kubectl logs --prefix": lambda line: f"[pod/nvidia-device-plugin-x7k2p/plugin] {line}",
    "typographic quotes": lambda line: re.sub(r'"([^"]*)"', "\u201c\\1\u201d", line).replace(
        "'", "\u2019"
    ),
    "Markdown list item": lambda line: f"- {line}",
    "numbered list": lambda line: f"1. {line}",
    "journalctl": lambda line: f"Mar 05 10:00:01 gpu-node-1 containerd[1234]: {line}",
    "kubectl describe, Message": lambda line: (
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
        "    Last State:     Terminated\n      Reason:       Error\n"
        f"      Message:      {line}\n      Exit Code:    1"
    ),
    "kubectl describe, Events": lambda line: (
        "Events:\n  Type     Reason  Age                From     Message\n"
        "  ----     ------  ----               ----     -------\n"
        f"  Warning  Failed  12s (x3 over 40s)  kubelet  {line}"
    ),
}

# (code, damage or None for every damage) -> why the example is not named by its own code so
# damaged.
MISSED: dict[tuple[str, str | None], str] = {
    ("xla-cuda-library-not-loaded", "fold -w 72"): (
        "the cut falls inside 'dlerror' ('dler' + 'ror: libcusolver.so.11: cannot open'), "
        "which reads as well as two words; the earlier cuda-math-library-missing then names "
        "the second line (it excludes the line only after 'dlerror: ')"
    ),
    ("device-plugin-mps-root-missing", "fold -w 80"): (
        "cut twice inside words ('loa' + 'd', 'specifie' + 'd') after a klog prefix: the "
        "joined line holds the message but the match is not found in any one way of joining"
    ),
    ("vllm-kv-cache-needed", "wrapped at 80"): (
        "its pattern spans the whole 330-character message, wrapped over five lines at a "
        "parenthesis that reads as inside a token, not between words"
    ),
}
# code -> why a later, more generic entry may also name a continuation line of the wrapped
# example (its own code still names it): the specific pattern matches the first line alone,
# the generic one the next line alone, and nothing shows the two are one message.
ALSO_NAMED: dict[str, str] = {
    "cuda-stub-library": "python-warning names 'UserWarning: ...' on the first line",
    "cudnn-load-failed": "cudnn-library-missing names 'libcudnn...: cannot open' after the cut",
    "tf-tensorrt-libraries-absent": (
        "tensorrt-library-missing names 'libnvinfer.so.7: cannot open' after the cut"
    ),
    "mig-pending-reset": "gpu-reset-in-use names the GPU's bus id line after the cut",
}

# damage -> the codes that name the envelope's own lines (describe's "Reason: CrashLoopBackOff"
# is a known symptom line of its own), not the example inside it
ENVELOPE_NAMED: dict[str, set[str]] = {"kubectl describe, Message": {"k8s-container-waiting"}}

CASES = [(s.code, example) for s in load_signatures().signatures for example in s.examples]


def _missed(code: str, damage: str) -> bool:
    return (code, None) in MISSED or (code, damage) in MISSED


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_every_example_is_named_by_its_own_code_when_damaged(matrix: Matrix, damage: str) -> None:
    blocks = [DAMAGE[damage](example) for _, example in CASES]
    paste = "\n\n".join(blocks)
    text = clean(paste)
    # clean keeps line numbers: each example's lines in the paste are its lines in `text`
    firsts, line = [], 1
    for block in blocks:
        firsts.append(line)
        line += block.count("\n") + 2
    named: dict[int, set[str]] = {}
    for start, (signature, _matched) in named_lines(text).items():
        named.setdefault(text.count("\n", 0, start) + 1, set()).add(signature.code)
    wrong = []
    for (code, _example), first, block in zip(CASES, firsts, blocks):
        codes = set().union(
            *(named.get(n, set()) for n in range(first, first + block.count("\n") + 1))
        )
        if _missed(code, damage):
            continue
        codes -= ENVELOPE_NAMED.get(damage, set()) - {code}
        also = damage != "as written" and code in ALSO_NAMED
        if code not in codes or (codes != {code} and not also):
            wrong.append(f"{code}: {sorted(codes)} for {block!r}")
    assert not wrong, "\n".join(wrong)
    # the examples hold reports that disagree (two drivers): they are read as several hosts
    reported = {
        e.code
        for _, facts in read_reports(paste, "paste.txt", matrix.architectures)
        if facts.report is not None
        for e in facts.report.errors
    }
    assert {code for code, _ in CASES if not _missed(code, damage)} <= reported


def test_every_exception_is_still_needed() -> None:
    """An exception the reader has outgrown is removed, not kept as an excuse."""
    for (code, damage), why in MISSED.items():
        assert why
        damages = [damage] if damage is not None else list(DAMAGE)
        assert any(code not in codes for n in damages for codes in _codes(n, code)), code
    for code, why in ALSO_NAMED.items():
        assert why
        assert any(codes - {code} for n in DAMAGE for codes in _codes(n, code)), code


def _codes(damage: str, code: str) -> list[set[str]]:
    """For each of the signature's examples so damaged, the codes naming its lines."""
    examples = [e for c, e in CASES if c == code]
    assert examples, code
    return [
        {s.code for s, _ in named_lines(clean(DAMAGE[damage](example))).values()}
        for example in examples
    ]
