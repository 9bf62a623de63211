"""The known error and log lines of a paste, by the signature catalogue
(matrices/signatures.toml), and the facts they state outright: the GPU and compute capability in
torch's "sm_120 is not compatible" warning, the driver's CUDA in "found version 12080", the
driver an NGC container detected, the module and library of an NVRM API mismatch, NVML's state.

A line is named by the first signature (in catalogue order) that matches it, so a specific
entry (an nvJitLink symbol) wins over a generic one (any undefined symbol). A message printed
over two or three lines (an NGC refusal, an NVRM mismatch or an unsupported GPU) is matched on
the line joined with the next ones, and a message quoted inside another (kubelet's err="...")
with its escaped quotes made plain.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import TYPE_CHECKING

from gpudoctor.facts import ReportError
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import KeywordLines, ascii_lower

if TYPE_CHECKING:
    from gpudoctor.matrix.signatures import Signature

NAME = "error lines"
DESCRIPTION = (
    "a known error or log line (no kernel image, sm_XX not compatible, driver too old, NCCL "
    "WARN, NVRM, container toolkit, ...)"
)

_MAX_TEXT = 300
# What a log puts before each line (dmesg's "[ 12.345678]", syslog's "Mar  5 10:00:01 host
# kernel:"): dropped from a continuation line before it is joined to the line above.
_LOG_PREFIX = re.compile(
    r"^(?:\[[ \d.]{1,20}\]\s{0,4}|[A-Z][a-z]{2} {1,2}\d{1,2} [\d:]{8} \S{1,64} kernel: ?"
    r"(?:\[[ \d.]{1,20}\]\s{0,4})?)"
)
_ESCAPED_QUOTE = re.compile(r'\\{1,8}"')
_MAX_PER_SIGNATURE = 1  # the first line of each known error: a log repeats them


def parse(text: str, draft: Draft) -> None:
    """Every known line, once, in the order they appear in the paste."""
    if not text:
        return

    catalogue = load_signatures()
    keyword_lines = KeywordLines(
        text, ascii_lower(text), (k for s in catalogue.signatures for k in s.keywords)
    )
    found: dict[int, tuple[Signature, str]] = {}  # line offset -> (owner, matched text)
    # The lines a signature owns: those it reports and those beyond (a log repeats its error),
    # which are not left to a later, more generic signature to judge again.
    owned: set[int] = set()
    hits: dict[str, int] = {}
    # Lines as written first; then, for the lines no signature claimed, with escaped quotes made
    # plain (so an escaped line never goes to an earlier, more generic entry than its own).
    for unescape in (False, True) if '\\"' in text else (False,):
        for signature in catalogue.signatures:
            for start, _line, matched in _candidates(
                text, keyword_lines, signature, owned, unescape
            ):
                owned.add(start)
                if hits.get(signature.code, 0) >= _MAX_PER_SIGNATURE:
                    continue
                found[start] = (signature, matched)
                hits[signature.code] = hits.get(signature.code, 0) + 1
    for start, (signature, matched) in sorted(found.items()):
        draft.section(NAME)
        number = text.count("\n", 0, start) + 1
        draft.errors.append(
            ReportError(code=signature.code, text=_shown(signature, matched), line=number)
        )
        draft.ranges.append((NAME, number, number))
        if signature.nvml_status:
            put(draft.nvml, "status", signature.nvml_status)
        _facts(signature.values(matched), draft)


def _candidates(
    text: str,
    keyword_lines: KeywordLines,
    signature: Signature,
    owned: Container[int],
    unescape: bool = False,
) -> list[tuple[int, str, str]]:
    """(line offset, line, the text the pattern matched in) for each line holding a keyword
    that an earlier (more specific) signature does not own; with `unescape`, only the lines
    with escaped quotes that match once those are plain."""
    out: list[tuple[int, str, str]] = []
    seen: set[int] = set()
    for keyword in signature.keywords:
        for start, line in keyword_lines.lines(keyword):
            if start in seen or start in owned:
                continue
            seen.add(start)
            stripped = line.strip()
            if unescape:
                # a message quoted inside another (kubelet's err="...", Go's %q): its quotes
                # come escaped, once or more (\" and \\\"); the signature reads them plain
                if '\\"' in stripped:
                    plain = _ESCAPED_QUOTE.sub('"', stripped)
                    if signature.compiled.search(plain):
                        out.append((start, line, plain))
                continue
            if signature.compiled.search(stripped):
                out.append((start, line, stripped))
                continue
            joined = _joined(text, start + len(line) + 1, stripped, signature)
            if joined is not None:
                out.append((start, line, joined))
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
