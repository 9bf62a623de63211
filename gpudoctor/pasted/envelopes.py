"""The envelopes a log or a page puts around each line, taken off before any reader looks: the
fact scanner and the shapes read the message as its program printed it.

Log envelopes (a prefix, or a record whose field holds the message): journald's formats
(`short`, `short-precise`, `short-iso`, `short-monotonic`, `-o json`), syslog, the kernel's
`[  123.456]` and `dmesg -T`, klog (and TensorFlow's C++ log), Python's logging (the cookbook's
`asctime - name - LEVEL - msg`, basicConfig's `LEVEL:name:msg`), JSON log lines (zap, logrus,
slog, Docker's json-file: `msg`, `message`, `log`),
an RFC 3339 time stamp (GitHub Actions, `kubectl logs --timestamps`, Loki's logcli with its
label set), GitHub Actions' `##[error]`, stern's and kubetail's pod and container. Page
envelopes: HTML tags a Markdown issue wraps a log in (`<details>`, `<pre>`), Markdown tables
(a row `| key | value |` reads `key: value`), editor line numbers, a YAML value folded over
lines (`key: >-`, a quoted value go-yaml wrapped).

Line numbers stay: an envelope is removed from its line, a folded value joined onto its key's
line and its other lines left empty. Every regex is anchored at a line start and made of
bounded classes. Only the facts head is unwrapped (scan.facts_head: where the readers look);
the error-line scan reads envelopes in all of a long log itself (records.py). A logfmt record
(`level=error msg="..."`) stays as written: apps.py reads slog's fields by their names, and
errors.py reads its message (records.py).
"""

from __future__ import annotations

import json
import re

from gpudoctor.pasted.scan import facts_head

# A host name as syslog and journald print it, before a program with its pid or the kernel
# (which has none): "gpu-node-1 nvidia-persistenced[812]: ", "node1 kernel: ". Requiring the pid
# keeps prose ("torch version: 2.1") from being read as a host and a program. The kernel's tag
# goes with the host; another program's stays, as it names what logged (k3s, containerd).
_HOST_PROGRAM = r"[A-Za-z0-9][A-Za-z0-9._-]{0,62} (?:kernel: |(?=[\w./@-]{1,64}\[\d{1,10}\]: ))"
_RFC3339 = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})"
_LEVELS = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"


def python_logging(levels: str) -> str:
    """The prefix Python's logging writes at the given levels (a regex alternation): the
    cookbook's "%(asctime)s - %(name)s - %(levelname)s - " and basicConfig's default
    "%(levelname)s:%(name)s:"."""
    return (
        rf"\d{{4}}-\d{{2}}-\d{{2}} \d{{2}}:\d{{2}}:\d{{2}}(?:,\d{{3}})? - [\w.-]{{1,200}} "
        rf"- {levels} - |{levels}:[\w.-]{{1,200}}:"
    )


# A pod's generated name (a ReplicaSet's or DaemonSet's: Kubernetes' random suffix is five of
# these characters, no vowels, no 0, 1 or 3) and a container's name: stern's and kubetail's
# prefixes.
_POD = r"[a-z0-9][a-z0-9.-]{0,200}-[bcdfghjklmnpqrstvwxz2456789]{5}"
_CONTAINER = r"[a-z0-9][a-z0-9-]{0,62}"
PREFIX = re.compile(
    "|".join(
        (
            # an RFC 3339 time stamp; journald's short-iso goes on with host and program, the CRI
            # log file with its stream and tag, Loki's logcli with the stream's label set
            rf"^{_RFC3339} (?:{_HOST_PROGRAM}|(?:stdout|stderr) [FP] "
            r'|\{[\w.]{1,63}="[^\n{}]{0,4000}"\} {1,4})?',
            # journald's short and short-precise, syslog: month, day, time, host, program
            rf"^[A-Z][a-z]{{2}} {{1,2}}\d{{1,2}} \d{{2}}:\d{{2}}:\d{{2}}(?:\.\d{{1,9}})? "
            rf"{_HOST_PROGRAM}",
            # the kernel's seconds since boot (dmesg, journald's short-monotonic) and dmesg -T
            rf"^\[ {{0,12}}\d{{1,10}}\.\d{{1,9}}\] ?(?:{_HOST_PROGRAM})?",
            r"^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\] ?",
            # GitHub Actions: a log line's command, and a workflow command
            r"^##\[(?:error|warning|notice|debug|command|group|endgroup|section)\]",
            r"^::(?:error|warning|notice|debug)(?: [^:\n]{0,300})?::",
            # klog (and glog): severity, month and day, time, thread, file:line]
            r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{1,9} {1,12}\d{1,10} [^\s\]]{1,200}\] ",
            # TensorFlow's C++ log: local time, severity, file:line]
            r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{1,9}: [IWEF] [^\s\]]{1,200}\] ",
            rf"^(?:{python_logging(_LEVELS)})",
            # stern ("pod container message") and kubetail ("[pod container] message")
            rf"^{_POD} {_CONTAINER} ",
            rf"^\[{_POD}(?: {_CONTAINER})?\] ",
            # `kubectl logs --prefix` (and -l, --all-containers): "[pod/NAME/CONTAINER] "
            # (kubernetes/kubectl, pkg/cmd/logs/logs.go, addPrefixIfNeeded)
            rf"^\[pod/[a-z0-9][a-z0-9.-]{{0,252}}/{_CONTAINER}\] ",
        )
    ),
    re.MULTILINE,
)
_PASSES = 4  # stern's prefix before a time stamp before klog's: each pass takes one layer
# A line holding one JSON object: a structured log's record, or a record journald printed
_JSON_LINE = re.compile(r"^[ \t]{0,8}\{\"[^\n]{0,100000}\}[ \t]{0,8},?$", re.MULTILINE)
# The fields a record's message is in (Docker's json-file log, zap's, logrus's and slog's msg,
# journald's MESSAGE, others' message), then its error (zap's error, logr's err); and the
# fields only a log record has, so that a one-line object of another kind (a manifest, a
# config) is left as it is.
_MESSAGE_KEYS = ("log", "msg", "MESSAGE", "message", "error", "err")
_RECORD_KEYS = (
    "level",
    "lvl",
    "severity",
    "ts",
    "time",
    "timestamp",
    "@timestamp",
    "stream",
    "logger",
    "caller",
    "__REALTIME_TIMESTAMP",
    "_PID",
    "SYSLOG_IDENTIFIER",
    "_SYSTEMD_UNIT",
    "PRIORITY",
)


def unwrap(text: str) -> str:
    """`text` with the envelopes of its head's lines taken off (see the module's text)."""
    head = facts_head(text)
    cut = len(text) if head is text else head.rfind("\n") + 1  # whole lines only
    plain = _unwrapped(text[:cut])
    # the paste itself where no line had an envelope: the readers' caches key on it
    return text if plain == text[:cut] else plain + text[cut:]


def _unwrapped(text: str) -> str:
    if '{"' in text:
        text = _JSON_LINE.sub(_json_record, text)
    if "|" in text and "---" in text:
        text = _tables(text)
    for _ in range(_PASSES):
        text, done = PREFIX.subn("", text)
        if not done:
            break
    return text


# A Markdown table's delimiter row ("|---|:---:|"): two cells or more, each of dashes only (an
# nvidia-smi table's rules hold "+" or "=", and no header row above them is a Markdown one)
_TABLE_RULE = re.compile(
    r"^[ \t]{0,3}\|[ \t]{0,4}:?-{3,200}:?[ \t]{0,4}(?:\|[ \t]{0,4}:?-{3,200}:?[ \t]{0,4}){1,30}\|"
    r"[ \t]{0,4}$",
    re.MULTILINE,
)


def _tables(text: str) -> str:
    """Each row of a Markdown table as its cells read: two as `key: value` ("| Driver |
    535.104.05 |"), more as `header: cell` pairs; the delimiter row empty."""
    starts: list[int] = []
    line, done = 0, 0
    for found in _TABLE_RULE.finditer(text):
        line += text.count("\n", done, found.start())  # counted once over the text
        done = found.start()
        starts.append(line)
    if not starts:
        return text
    lines = text.split("\n")
    for rule in starts:
        header = _cells(lines[rule - 1]) if rule > 0 else None
        if not header:
            continue
        lines[rule] = ""
        lines[rule - 1] = _row(header, header)
        row = rule + 1
        while row < len(lines) and lines[row].strip().startswith("|"):
            cells = _cells(lines[row])
            if cells:
                lines[row] = _row(header, cells)
            row += 1
    return "\n".join(lines)


def _cells(line: str) -> list[str] | None:
    stripped = line.strip()
    if len(stripped) < 3 or stripped[0] != "|" or stripped[-1] != "|":
        return None
    return [cell.strip() for cell in stripped[1:-1].split("|")]


def _row(header: list[str], cells: list[str]) -> str:
    if len(cells) == 2:
        return f"{cells[0]}: {cells[1]}" if cells[1] else cells[0]
    if cells is header:
        return "  ".join(cells)
    return ", ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c)


def _json_record(found: re.Match[str]) -> str:
    line = found.group()
    message = json_message(line.strip().rstrip(","), log_records_only=True)
    return line if message is None else message


def json_message(text: str, *, log_records_only: bool = False) -> str | None:
    """The message of a one-line JSON object (its message fields, then its error, joined by
    ": "); None when it is no object or holds no message, or, with `log_records_only`, holds
    none of the fields only a log record has. The one reading of a log record's message: the
    fact readers' envelopes and the error-line scan (records.py) both take it from here."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if log_records_only and not any(key in data for key in _RECORD_KEYS):
        return None
    parts = [_text(data.get(key)) for key in _MESSAGE_KEYS]
    # a record's own line breaks (Docker keeps the one that ended the line) read as spaces: the
    # paste keeps its line numbers; the line's own indent stays (`nvidia-smi -q` is read by it)
    message = ": ".join(p.replace("\r", "").replace("\n", " ").rstrip() for p in parts if p)
    return message if message.strip() else None


def _text(value: object) -> str:
    """A field's text; journald writes a message that is not valid UTF-8 as its bytes."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(b, int) for b in value):
        try:
            return bytes(value).decode("utf-8", "replace")
        except ValueError:  # a number past a byte
            return ""
    return ""
