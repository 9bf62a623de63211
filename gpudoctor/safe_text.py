"""Values from a host or a snapshot, made safe to show.

GPU names, host names, statuses and error texts come from NVML, sysfs or a snapshot someone
else wrote. Raw, they can carry terminal escape sequences (clear the screen, write the clipboard
with OSC 52, retitle the window), carriage returns and line feeds that forge report lines,
bidirectional overrides that reorder what is read, and lone surrogates that no UTF-8 writer
accepts. Every reporter, and every message that quotes such a value, shows them through
`printable`: one line, nothing the terminal or a parser would act on. A neutral module: the
matrix loader, the checks, the builder and the reporters all use it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor.facts_json import valid_text
from gpudoctor.redaction import secrets_removed

if TYPE_CHECKING:
    from gpudoctor.findings import Finding

# C0 controls, DEL, C1 controls; bidirectional embeddings, overrides and isolates; lone
# surrogates; the Unicode line and paragraph separators; the two XML 1.0 non-characters.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def printable(text: str) -> str:
    """`text` on one line with every control character shown as `?` (a tab as a space) and
    undecodable bytes (lone surrogates) as U+FFFD."""
    if text.isprintable():  # the common case, and fast
        return text
    return _UNSAFE.sub(lambda m: " " if m.group() == "\t" else "?", valid_text(text))


def printable_lines(text: str) -> str:
    """`text` with its line feeds kept (a detail may be a table) and each line printable;
    reporters indent every line, so a value cannot forge a line of its own."""
    if text.isprintable():
        return text
    return "\n".join(printable(line) for line in text.split("\n"))


def shown(text: str) -> str:
    """`printable(text)` without URL credentials or secrets (the one redaction rule)."""
    return printable(secrets_removed(text))


def clean_finding(f: Finding) -> Finding:
    """The finding with every text field printable and without URL credentials or secrets
    (codes and severities are ours already)."""
    fields = (f.title, f.detail.replace("\n", " "), f.fix, f.subject)
    evidence = tuple((shown(k), shown(v)) for k, v in f.evidence)
    if (
        all(map(str.isprintable, fields))
        and all(secrets_removed(x) == x for x in fields)
        and evidence == f.evidence
    ):
        return f
    return replace(
        f,
        title=shown(f.title),
        detail=printable_lines(secrets_removed(f.detail)),
        fix=shown(f.fix),
        subject=shown(f.subject),
        evidence=evidence,
    )
