"""Lines that say something failed, where the paste holds no line the signature catalogue
knows: read as unknown error lines, so that a paste of only those is answered with what was
read and what to paste next, not "no report recognised".

What counts, by the programs' own formats:
- the final line of a Python traceback (CPython's traceback module: after "Traceback (most
  recent call last):" and its indented frames, `TypeName: message` or `TypeName` alone; a
  chained traceback's last one is the one raised), and a line that starts with an exception's
  name (`RuntimeError: ...`, `requests.exceptions.ConnectionError: ...`);
- a log line of level error or fatal: `error:` / `fatal:` / `fatal error:` at the start of a
  line (gcc, git, pip, Go and Node CLIs), a compiler's `file.c:12:3: error:`, the CUDA compiler
  tools' `nvcc fatal   :` / `ptxas error   :` (nvcc, ptxas, nvlink, fatbinary, cicc, cudafe++),
  `ERROR` / `FATAL` / `CRITICAL` as a level word (Python's logging, glog's `E0501`/`F0501` prefix,
  `[ERROR]`, `level=error`), apt's `E:`, and a C program's log line that starts with the
  function that failed (llama.cpp's and ggml's `LLAMA_LOG_ERROR("%s: error loading model: %s",
  __func__, ...)`: `llama_model_load: error loading model: ...`, `common_init_from_params:
  failed to load model`), after llama.cpp's own time and level prefix (`0.00.510.233 E `);
- what a shell prints for a program a signal ended (bash's `strsignal` texts: "Segmentation
  fault", "Aborted", "Bus error", "Illegal instruction", "Floating point exception", "Killed",
  with " (core dumped)"), and a non-zero exit code or status ("exit code 139", "returned
  non-zero exit status 1", "exited with code 1");
- a system call's failure as a program reports it (perror's `prog: what: strerror` with the C
  library's texts: "No such file or directory", "Permission denied", ...; bash's and dash's
  "command not found" / "not found", zsh's, cmd.exe's and PowerShell's forms of it), and a
  notebook's kernel that died (Jupyter's "The kernel appears to have died", VS Code's "The
  Kernel crashed");
- a line of the NVIDIA kernel driver's log (its `NVRM:` prefix) that says something failed
  ("failed", "cannot", "timed out", "invalid", "GPU is lost", a status such as
  `[NV_ERR_TIMEOUT]`): the RM's own error lines the catalogue does not name;
- GNU make's failure line (`make[2]: *** [...] Error 2`), as a module build's log ends;
- an X server log's error line: the server marks each message's kind in front of it and
  "(EE)" is its error mark (the log's own legend: "(WW) warning, (EE) error"), as the NVIDIA
  X driver's refusals ("(EE) NVIDIA(0): Failed to initialize the NVIDIA kernel module!") and
  the server's own ("(EE) Failed to load module "nvidia"") are written.

Only where no known line was found (the known lines have findings of their own; the unknown
ones beside them are mostly their context). The report quotes them; their cause is not known,
so they are never a warn or an error.
"""

from __future__ import annotations

import re

from gpudoctor.facts import ReportError
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import ascii_lower, lines_with

NAME = "unknown error lines"
DESCRIPTION = (
    "an error line not in the catalogue (a traceback's exception, `error:`/`FATAL` log lines, "
    "a crash or a non-zero exit code), quoted as read"
)

UNKNOWN_ERROR = "unknown-error-line"  # ReportError.code of such a line
MAX_LINES = 5  # lines kept: the first ones, a log repeats its errors
_MAX_TEXT = 300
_MAX_LINE = 2000
_MAX_CANDIDATES = 2000
_FRAMES = 200  # lines a traceback's frames may span before its exception line

_NEEDLES = (
    "error",
    "fatal",
    "critical",
    "exception",
    "traceback",
    "fault",
    "aborted",
    "killed",
    "core dumped",
    "exit code",
    "exit status",
    "exited with code",
    "e: ",
    "illegal instruction",
    "check failed",  # glog's FATAL of a CHECK
    "no such ",
    "denied",
    "not permitted",
    "not found",
    "input/output error",
    "cannot allocate",
    "resource busy",
    "died",
    "crashed",
    "not recognized",
    "failed to ",
    "nvrm:",
    ": *",  # make's "***", after the cleaning took Markdown's bold "**" out of it
    "(ee)",
)

_TRACEBACK = "Traceback (most recent call last)"
# CPython's exception line: a dotted name (checked by _exception_name), then ": message" or
# nothing
_NAME_FIRST = re.compile(r"^\s{0,4}(?P<name>[\w.]{1,200})(?P<colon>\s{0,2}:\s|:?\s{0,2}$)")
# a frame's lines, and what Python 3.11+ and IPython print between frames
_IN_TRACEBACK = re.compile(
    r"^(?:\s|File |Cell In\[|----> ?\d|\^|~|\.\.\.|During handling of the above|"
    r"The above exception was|Traceback \(most recent call last\)|-{20})"
)
_EXCEPTION_SUFFIXES = ("Error", "Exception", "Failure")
# log lines of level error or fatal
_LEVEL = re.compile(
    r"^\s{0,4}(?:fatal error|error|fatal|E)\s{0,2}:\s{1,4}\S"  # gcc, git, pip, apt's "E:"
    r"|:\d{1,6}(?::\d{1,6})?:\s{0,2}(?:fatal )?error:\s"  # file.c:12:3: error:
    # the CUDA compiler's tools: "nvcc fatal   : ...", "ptxas error   : ...", "nvlink fatal : ..."
    r"|^\s{0,4}(?:nvcc|ptxas|nvlink|fatbinary|cicc|cudafe\+\+)(?:\.exe)?\s{1,4}(?:fatal|error)\s{0,4}:\s"
    r"|^[EF]\d{4} \d\d:\d\d:\d\d\.\d{3,6}\s"  # glog's E0501/F0501
    r"|\blevel=\"?(?:error|fatal|panic)\b",
    re.IGNORECASE,
)
# `__func__: error ...` / `__func__: failed to ...`: a C function's name (snake_case, or main)
_FUNCTION_FAILED = re.compile(
    r"^\s{0,4}(?:\d{1,4}\.\d{2}\.\d{3}\.\d{3} [EWI] )?(?:[a-z][a-z0-9]{0,30}_[a-z0-9_]{1,60}|main)"
    r": (?:error\b|failed to \w)"
)
_LEVEL_WORD = re.compile(r"(?:^|[\s\[|(\-])(?:ERROR|FATAL|CRITICAL|PANIC)(?:[\]\s:|)\-]|$)")
_SIGNALS = (
    r"(?:Segmentation fault|Aborted|Bus error|Illegal instruction|Floating point exception|Killed)"
)
_SIGNAL = re.compile(
    # the whole line, as bash prints it for a foreground job ("Killed"), or a background one
    # ("[1]+  Killed    python train.py")
    rf"^(?:\[\d{{1,3}}\][+-]?\s{{1,8}})?{_SIGNALS}(?: \(core dumped\))?"
    r"(?:\s{2,40}\S[^\n]{0,200})?$"
    # a script's job: "./run.sh: line 3: 12345 Killed    python train.py"
    rf"|: line \d{{1,6}}:\s{{1,4}}\d{{1,8}}\s{{1,8}}{_SIGNALS}\b"
    r"|\(core dumped\)|\bSegmentation fault\b|\bsegfault at [0-9a-f]{1,16} ip\b"
)
_EXIT = re.compile(
    r"\bexit(?:ed)?(?: with)?(?: exit)? (?:code|status)\s{0,2}[:=]?\s{0,2}(?P<n>-?\d{1,3})\b",
    re.IGNORECASE,
)
# perror()'s "prog: what: message" with glibc's strerror texts (and the shells' own lines)
_ERRNO = re.compile(
    r"^[\w./\[\]-]{1,80}:\s[^\n]{0,300}?\b(?:No such file or directory|Permission denied|"
    r"Operation not permitted|No such device(?: or address)?|Input/output error|"
    r"Cannot allocate memory|Device or resource busy|command not found|not found)\W{0,4}$"
)
# a shell that found no such program: zsh's "command not found: X", cmd.exe's "'X' is not
# recognized as an internal or external command", PowerShell's "The term 'X' is not recognized
# as the name of a cmdlet" (bash's and dash's "X: command not found" are _ERRNO's)
_NO_PROGRAM = re.compile(
    r"\bcommand not found: \S|' is not recognized as (?:an internal or external command|"
    r"(?:the|a) name of a cmdlet)"
)
# a notebook's kernel (the Python process) ended: Jupyter's and VS Code's dialogs
_DIED = re.compile(r"\bkernel (?:appears to have died|died|crashed)\b", re.IGNORECASE)
# the NVIDIA kernel driver's error lines (NV_PRINTF(LEVEL_ERROR, ...) and nv_printf under its
# "NVRM: " prefix), and the "NVIDIA: " lines of the tools that load it; its informational
# lines ("NVRM: loading ...", "GPU at PCI:...") say none of these words
_NVRM_FAILED = re.compile(
    r"(?:\bNVRM|^NVIDIA): [^\n]{0,300}?(?:\b(?:failed|failure|error|cannot|can't|unable to|"
    r"timed out|timeout|invalid|mismatch|not supported|bad state|probably locked|is lost)\b|"
    r"\[NV_ERR_\w{1,60}\])",
    re.IGNORECASE,
)
# GNU make's own failure line ("make[2]: *** [Makefile.build:243: nv.o] Error 1", "make: ***
# No rule to make target ..."): a DKMS or installer build of the kernel module that stopped
_MAKE_FAILED = re.compile(r"^(?:g?make|kmake)(?:\[\d{1,3}\])?: \*{1,3} \S")
# the X server's error mark, after the uptime stamp of its newer logs ("[    18.447] (EE) ...")
_XORG_ERROR = re.compile(r"^(?:\[\s{0,10}\d{1,10}\.\d{1,6}\]\s{0,4})?\(EE\)\s{1,4}\S")
_FAILED_LINES = (
    _SIGNAL,
    _ERRNO,
    _NO_PROGRAM,
    _DIED,
    _NVRM_FAILED,
    _MAKE_FAILED,
    _XORG_ERROR,
)
# a program's own source, not its output: a definition, a test, a logging call
_SOURCE = re.compile(
    r"^\s{0,8}(?:def|class|except|raise|if|elif|return|assert|#)\b|\.(?:error|fatal|critical)\("
)


def parse(text: str, draft: Draft) -> None:
    if draft.errors:
        return  # the known lines say it; see the module's docstring
    lower = ascii_lower(text)
    found: dict[int, str] = {}
    candidates = lines_with(lower, text, _NEEDLES)[:_MAX_CANDIDATES]
    for start, line in candidates:
        if _TRACEBACK in line:
            at = _exception_line(text, start + len(line) + 1)
            if at is not None:
                found.setdefault(*at)
    for start, line in candidates:
        if len(found) >= MAX_LINES:
            break
        if start not in found and _says_failed(line[:_MAX_LINE]):
            found[start] = line
    if not found:
        return
    for start in sorted(found)[:MAX_LINES]:
        number = text.count("\n", 0, start) + 1
        draft.unknown_lines.append(
            ReportError(code=UNKNOWN_ERROR, text=found[start].strip()[:_MAX_TEXT], line=number)
        )
        draft.ranges.append((NAME, number, number))
    draft.section(NAME)


def _exception_line(text: str, pos: int) -> tuple[int, str] | None:
    """The exception line that ends the traceback whose frames start at `pos`."""
    for _ in range(_FRAMES):
        if pos >= len(text):
            return None
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        line = text[pos:end][:_MAX_LINE]
        if line.strip() and not _IN_TRACEBACK.match(line):
            m = _NAME_FIRST.match(line)
            return (pos, line) if m is not None and _dotted(m.group("name")) else None
        pos = end + 1
    return None


def _says_failed(line: str) -> bool:
    stripped = line.strip()
    if not stripped or _SOURCE.search(stripped):
        return False
    if _LEVEL.search(stripped) or _LEVEL_WORD.search(stripped):
        return True
    if _FUNCTION_FAILED.match(stripped):
        return True
    raised = _NAME_FIRST.match(stripped)
    if raised is not None and _dotted(raised.group("name")):
        last = raised.group("name").rsplit(".", 1)[-1]
        if last[:1].isupper() and last.endswith(_EXCEPTION_SUFFIXES):
            return True
    if any(p.search(stripped) for p in _FAILED_LINES):
        return True
    exit_code = _EXIT.search(stripped)
    return exit_code is not None and int(exit_code.group("n")) != 0


def _dotted(name: str) -> bool:
    """A (dotted) Python name: "KeyError", "requests.exceptions.ConnectionError"."""
    return all(part.isidentifier() for part in name.split("."))
