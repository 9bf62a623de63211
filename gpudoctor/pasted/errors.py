"""The known error and log lines of a paste, by the signature catalogue
(matrices/signatures.toml), and the facts they state outright: the GPU and compute capability in
torch's "sm_120 is not compatible" warning, the driver's CUDA in "found version 12080", the
driver an NGC container detected, the module and library of an NVRM API mismatch, NVML's state.

A line is named by the first signature (in catalogue order) that matches it, so a specific
entry (an nvJitLink symbol) wins over a generic one (any undefined symbol). A message printed
over two or three lines (an NGC refusal, an NVRM mismatch or an unsupported GPU) is matched on
the line joined with the next ones; a message in a log record's envelope (a JSON record, a
logrus field, klog's or journald's prefix, kubectl describe) as the message it holds
(records.py); and a message a hard wrap broke over lines as the line it was (unwrap.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

from gpudoctor.facts import ReportError
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted import records, unwrap
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import KeywordLines, LineCounter, ascii_lower

if TYPE_CHECKING:
    from gpudoctor.matrix.signatures import Signature

NAME = "error lines"
DESCRIPTION = (
    "a known error or log line (no kernel image, sm_XX not compatible, driver too old, NCCL "
    "WARN, NVRM, container toolkit, ...)"
)

_MAX_TEXT = 300
# What a log puts before each line (dmesg's "[ 12.345678]", syslog's "Mar  5 10:00:01 host
# kernel:"), pytest's "E   " before each line of a failure's exception, and a Markdown quote's
# "> " (a pasted reply): dropped from a continuation line before it is joined to the line above.
_LOG_PREFIX = re.compile(
    r"^(?:\[[ \d.]{1,20}\]\s{0,4}|[A-Z][a-z]{2} {1,2}\d{1,2} [\d:]{8} \S{1,64} kernel: ?"
    r"(?:\[[ \d.]{1,20}\]\s{0,4})?|E {3}|> ?)"
)


def parse(text: str, draft: Draft) -> None:
    """Every known line, once, in the order they appear in the paste."""
    if not text:
        return
    # the first line of each known error: a log repeats them
    found: dict[str, tuple[int, Signature, str]] = {}
    lines = LineCounter(text)
    for start, (signature, matched) in sorted(named_lines(text).items()):
        found.setdefault(signature.code, (start, signature, matched))
        draft.named_lines.add(lines.at(start))
    for start, signature, matched in sorted(found.values(), key=lambda item: item[0]):
        draft.section(NAME)
        number = text.count("\n", 0, start) + 1
        draft.errors.append(
            ReportError(code=signature.code, text=_shown(signature, matched), line=number)
        )
        draft.ranges.append((NAME, number, number))
        if signature.nvml_status:
            put(draft.nvml, "status", signature.nvml_status)
        _facts(signature.values(matched), draft)


def named_lines(text: str) -> dict[int, tuple[Signature, str]]:
    """Line offset -> (the signature that names the line, the text it matched in), for every
    known line of the paste, repeats included."""
    signatures = load_signatures().signatures
    keyword_lines = KeywordLines(text, ascii_lower(text), _all_keywords(signatures))
    # line offset -> (catalogue rank, owner, matched text): the lines a signature owns, those
    # it reports and those beyond (a log repeats its error), which are not left to a later,
    # more generic signature to judge again.
    owner: dict[int, tuple[int, Signature, str]] = {}
    # (line offset, plain) -> the message of its JSON log record (plain: the message its
    # envelope holds, records.message); None where the line has none
    messages: dict[tuple[int, bool], str | None] = {}
    # Lines as written first (a JSON log record as its message: nobody writes a pattern for
    # the record); then, for the lines no signature claimed, the message inside a log record's
    # envelope made plain (so that a line a signature was written for as it is logged, escaped
    # quotes and all, never goes to an earlier, more generic entry); then messages a hard wrap
    # broke over lines (unwrap.py).
    for plain in (False, True):
        for rank, signature in enumerate(signatures):
            for start, matched in _candidates(
                text, keyword_lines, signature, owner, messages, plain=plain
            ):
                owner[start] = (rank, signature, matched)
    unwrap.claim(text, signatures, owner)
    return {start: (signature, matched) for start, (_, signature, matched) in owner.items()}


def _all_keywords(signatures: Iterable[Signature]) -> list[str]:
    return [k for s in signatures for k in (*s.keywords, *_escaped_keywords(s.keywords))]


@functools.cache  # one entry per signature of the catalogue
def _escaped_keywords(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """The keywords as a JSON or Go string writes them (\\" for a quote, \\u003c for `<`): a
    structured log record holds its message so."""
    return tuple(
        escaped
        for escaped in (k.translate(_JSON_ESCAPES) for k in keywords)
        if escaped not in keywords
    )


# IPython's traceback marks the frame's current source line with an arrow and its number
# ("--> 216     raise RuntimeError(...)"): program text, whose message is the exception line's.
_IPYTHON_SOURCE = re.compile(r"^\s{0,4}-{1,8}> {0,2}\d{1,6}\s")

# What JSON (Go's encoding/json escapes <, > and & too) writes for a character of a keyword.
_JSON_ESCAPES = str.maketrans(
    {"\\": "\\\\", '"': '\\"', "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\t": "\\t"}
)


def _candidates(
    text: str,
    keyword_lines: KeywordLines,
    signature: Signature,
    owned: Container[int],
    messages: dict[tuple[int, bool], str | None],
    *,
    plain: bool,
) -> list[tuple[int, str]]:
    """(line offset, the text the pattern matched in) for each line holding a keyword that an
    earlier (more specific) signature does not own: the line as written (a JSON log record:
    its message), else the line joined with the next ones; with `plain`, the message its log
    record's envelope holds (records.message), where that differs from the line."""
    out: list[tuple[int, str]] = []
    seen: set[int] = set()
    for keyword in (*signature.keywords, *_escaped_keywords(signature.keywords)):
        for start, line in keyword_lines.lines(keyword):
            if start in seen or start in owned:
                continue
            seen.add(start)
            if _IPYTHON_SOURCE.match(line):
                continue
            if (start, plain) not in messages:
                messages[start, plain] = (
                    records.message(line)
                    if plain
                    else records.record(line)
                    if line.lstrip().startswith("{")
                    else None
                )
            message = messages[start, plain]
            if plain:
                if message is not None and signature.compiled.search(message):
                    out.append((start, message))
                continue
            stripped = (message or line).strip()
            if signature.compiled.search(stripped):
                out.append((start, stripped))
                continue
            if message is not None and signature.compiled.search(line.strip()):
                out.append((start, line.strip()))  # a pattern for the record's other fields
                continue
            joined = _joined(text, start + len(line) + 1, stripped, signature)
            if joined is not None:
                out.append((start, joined))
    return sorted(out)


def _shown(signature: Signature, matched: str) -> str:
    """The line as the report shows it: from its start, or, where the match ends past the limit
    (a long log prefix), from where the match starts, so that the numbers it states stay in it
    (the finding's cause and fix are rendered from this text)."""
    if len(matched) <= _MAX_TEXT:
        return matched
    match = signature.compiled.search(matched)
    if match is None or match.end() <= _MAX_TEXT:
        return matched[:_MAX_TEXT]
    return matched[match.start() : match.start() + _MAX_TEXT]


_JOIN_LINES = 2  # lines after the first a message may continue on (NVRM prints over three)


def _joined(text: str, end: int, first: str, signature: Signature) -> str | None:
    """The line joined with the next one, then two, when the signature matches only so."""
    joined = first
    for _ in range(_JOIN_LINES):
        if end > len(text):
            return None
        stop = text.find("\n", end)
        following = text[end : stop if stop != -1 else None].strip()
        if not following:
            return None
        joined = f"{joined} {_LOG_PREFIX.sub('', following)}"
        if signature.compiled.search(joined):
            return joined
        if stop == -1:
            return None
        end = stop + 1
    return None


def _facts(values: dict[str, str], draft: Draft) -> None:
    if "driver" in values:
        put(draft.nvml, "driver_version", values["driver"])
    if "module" in values:
        put(draft.kernel, "nvidia_module_version", values["module"])
    if "library" in values:
        put(draft.nvml, "library_version", values["library"])
    if "driver_cuda_from_int" in values:
        put(draft.nvml, "cuda_driver_version", values["driver_cuda_from_int"])
    if "driver_cuda" in values:
        put(draft.nvml, "cuda_driver_version", values["driver_cuda"])
    if "nccl" in values:
        put(draft.libraries, "nccl", values["nccl"])
    if "nvcc_cuda" in values and draft.nvcc_version is None:
        draft.nvcc_version = values["nvcc_cuda"]  # the CUDA toolkit the build found
    if "torch_cuda" in values:
        put(draft.torch, "cuda", values["torch_cuda"])  # torch.version.cuda
    cc = values.get("cc_from_sm") or values.get("cc")
    if "gpu" in values and cc:
        name = values["gpu"].strip().removeprefix("UserWarning:").strip()
        gpu_cc(draft, name.split(": ")[-1], cc)


def gpu_cc(draft: Draft, name: str, cc: str) -> None:
    """Give the named GPU its compute capability; a GPU no other section listed is added."""
    for gpu in draft.gpus.values():
        if gpu.get("name") and (gpu["name"] in name or name in gpu["name"]):
            put(gpu, "compute_capability", cc)
            return
    gpu = draft.gpu(len(draft.gpus))
    put(gpu, "name", name)
    put(gpu, "compute_capability", cc)
