"""The message inside a log record's envelope, as its program printed it: a line of a structured
log (Docker's json-file `{"log": ...}`, zap's and logrus's JSON `{"msg": ...}`, logrus's text
`level=error msg="..."`), with its JSON or Go escapes (\\" \\\\ \\n \\t \\u003c) made plain, and
the prefixes a log puts before a message (klog's `E0412 10:11:12.123456 1 file.go:12]`,
journald's and syslog's `Mar 05 10:00:01 host prog[123]:`, dmesg's `[ 12.345678]`, an ISO time
stamp, `docker compose`'s `service  | `, `kubectl describe`'s `Message:` and an Events row).

The signatures are written for the message; these are what real pastes wrap it in. Every regex
is anchored at the line's start and made of bounded classes; each runs on one line that holds a
signature's keyword, never over a whole paste.
"""

from __future__ import annotations

import re

from gpudoctor.pasted import envelopes

_PREFIXES = (
    # what the fact readers' envelopes take off (journald's formats, Python's logging, GitHub
    # Actions, stern, kubetail, Loki, dmesg -T): first, as it reads a whole prefix where the
    # ones below read a part (a time stamp, a list marker)
    envelopes.PREFIX,
    # klog: severity, MMDD, time, thread id, file:line]
    re.compile(r"[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{1,9}\s{1,12}\d{1,10} [^\s\]]{1,200}\] "),
    # journald (short format) and syslog: month day time host program[pid]:
    re.compile(
        r"[A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2} \S{1,64} [^\s:\[\]]{1,64}(?:\[\d{1,10}\])?: "
    ),
    re.compile(r"\[[ \d.]{1,20}\]\s{0,4}"),  # dmesg's seconds since boot
    # an RFC 3339 / ISO 8601 time stamp (`kubectl logs --timestamps`, `docker logs -t`)
    re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})? "),
    # the CRI log file's stream and tag after its time stamp (/var/log/containers/*.log, what
    # containerd and CRI-O write for the kubelet: "2024-03-05T10:00:01.1Z stderr F message")
    re.compile(r"(?:stdout|stderr) [FP] "),
    # `kubectl logs --prefix`: the source, "[pod/NAME/CONTAINER] "
    re.compile(r"\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] "),
    re.compile(r"[\w.-]{1,64} {0,30}\| "),  # docker compose: the service's name and a bar
    # a Markdown list item's marker ("- ", "* ", "1. ") put before a pasted line
    re.compile(r"(?:[-*+]|\d{1,3}[.)]) "),
    re.compile(r"Message:\s{1,40}"),  # kubectl describe pod: a container's last state
    # a journald program's tag, which envelopes.py keeps for the fact readers
    re.compile(r"[\w./@-]{1,64}\[\d{1,10}\]: "),
    # kubectl describe: an Events row (type, reason, age with its repeats, source)
    re.compile(
        r"(?:Normal|Warning)\s{1,12}\S{1,80}\s{1,40}\S{1,20}(?: \(x\d{1,7} over \S{1,20}\))?"
        r"\s{1,40}[\w.:/-]{1,80}(?:, [\w.:-]{1,80})?\s{1,40}"
    ),
)
# A record Python's logging wrote at DEBUG or INFO (the cookbook's "asctime - name - LEVEL - "
# and basicConfig's "LEVEL:name:") keeps its level for the signatures: a program's own
# informational record of a failure it went past (JAX probing a backend it was not asked
# for) is not its error, and the entries that tell the two apart read the level.
_QUIET_PYTHON_RECORD = re.compile(envelopes.python_logging("(?:DEBUG|INFO)"))
_MAX_PREFIXES = 4  # journald's line may carry klog's, which may carry a time stamp
# A quoted field of a logrus text record (Go's %q): msg="...", err="...", error="...".
_QUOTED_FIELD = re.compile(r'(?:^|\s)(?:msg|err|error)="((?:[^"\\]|\\.){0,8000})"')
# One level of JSON / Go escapes: \uXXXX, \" \\ \/, \n \r \t.
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/])|([nrt]))')
_ESCAPED_QUOTE = re.compile(r'\\{1,8}"')  # a quote escaped once more than the text around it


def record(line: str) -> str | None:
    """The message of a JSON log record (Docker's json-file, zap, logrus), decoded; None when
    the line is not one. It is the line a program printed, escaped quotes and all."""
    text = line.strip().rstrip(",")
    if not (text.startswith("{") and text.endswith("}")):
        return None
    return envelopes.json_message(text)


def message(line: str) -> str | None:
    """The message the line's envelope holds, made plain (prefixes dropped, a logrus text
    record's message fields, escapes decoded); None when the line has no envelope and no
    escapes (it already is the message)."""
    stripped = line.strip()
    if _QUIET_PYTHON_RECORD.match(stripped):
        return None
    text = record(stripped) or stripped
    text = _without_prefixes(text)
    if '="' in text and " msg=" in f" {text}":
        fields = [m.group(1) for m in _QUOTED_FIELD.finditer(text)]
        if fields:
            text = ": ".join(_unescaped(field) for field in fields)
    if "\\" in text:
        text = _unescaped(text)
    text = _without_prefixes(text)
    return text if text != stripped else None


def _without_prefixes(text: str) -> str:
    for _ in range(_MAX_PREFIXES):
        for prefix in _PREFIXES:
            found = prefix.match(text)
            if found:
                text = text[found.end() :]
                break
        else:
            return text
    return text


def _unescaped(text: str) -> str:
    plain = _ESCAPE.sub(_plain, text)
    if '\\"' in plain:  # escaped twice or more (a %q inside a %q): the quotes read plain
        plain = _ESCAPED_QUOTE.sub('"', plain)
    return plain


def _plain(found: re.Match[str]) -> str:
    code, same, control = found.groups()
    if code is not None:
        return chr(int(code, 16))
    if same is not None:
        return same
    return "\t" if control == "t" else " "
