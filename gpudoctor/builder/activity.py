"""What a build is doing, in words, read from its log lines: pip's "Collecting", "Downloading",
"Installing collected packages" (the long silent parts of a framework image), and the line
cleaned for a terminal or a file (colour only where the reader has one).

Pure functions of the text; the CLI's progress printer and its ticker use them.
"""

from __future__ import annotations

import re

# pip's progress lines (pip 20-25), the ones that say which wheel a silent minute belongs to.
_COLLECTING = re.compile(r"^\s*Collecting (\S+)")
_DOWNLOADING = re.compile(r"^\s*Downloading (\S+?)(?: \(([^)]+)\))?\s*$")
_PROCESSING = re.compile(r"^\s*Processing (\S+)")
_INSTALLING = re.compile(r"^\s*Installing collected packages: (.+)$")
_INSTALLED = re.compile(r"^\s*Successfully installed ")
# CSI sequences (colours, cursor moves), OSC sequences, and single-character escapes.
_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour: the one sequence a terminal reader gets
SGR_SPLIT = re.compile(r"(\x1b\[[0-9;]*m)")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_ESC = re.compile(r"\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def pip_activity(line: str) -> str | None:
    """The wheel pip is working on, from one of its log lines; None for any other line."""
    text = clean(line, colour=False)
    found = _DOWNLOADING.match(text)
    if found:
        name = found.group(1).rsplit("/", 1)[-1]
        size = f" ({found.group(2)})" if found.group(2) else ""
        return f"downloading {name}{size}"
    found = _INSTALLING.match(text)
    if found:
        names = [n.strip() for n in found.group(1).split(",") if n.strip()]
        shown = ", ".join(names[-3:])  # pip installs in dependency order: the framework last
        more = f"{len(names) - 3} more, " if len(names) > 3 else ""
        return f"installing {len(names)} package(s): {more}{shown}"
    found = _COLLECTING.match(text) or _PROCESSING.match(text)
    if found:
        return f"collecting {found.group(1).rsplit('/', 1)[-1]}"
    if _INSTALLED.match(text):
        return "installed"
    return None


def clean(line: str, *, colour: bool) -> str:
    """One log line as it should be shown: what a carriage return overwrote is dropped (a
    progress bar's last state stays), escape sequences go, except colours on a terminal."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip()]
        line = parts[-1] if parts else ""
    if "\x1b" in line:
        line = _OSC.sub("", line)
        if colour:
            line = _CSI.sub(lambda m: m.group() if SGR.fullmatch(m.group()) else "", line)
        else:
            line = _CSI.sub("", line)
        line = _ESC.sub("", line) if not colour else line
    return _CONTROL.sub("", line) if not colour else _CONTROL.sub(_keep_escape, line)


def _keep_escape(match: re.Match[str]) -> str:
    return match.group() if match.group() == "\x1b" else ""
