"""GPU names in prose ("4x A100 80GB", "my 4090", "Jetson Orin Nano"), matched as whole words
against the matrix's model lists (an `[[architecture]]` row's `datacenter_gpus` and
`consumer_gpus`, and the names people give the Jetson modules): a name that fits models of two
compute capabilities ("A10/A100") keeps its compute capability unknown. A model the lists do
not hold, named as NVIDIA names its products ("GeForce GTX 1650", "NVIDIA Quadro RTX 4000"), is
a GPU of unknown compute capability. Read only where no block of the paste listed the GPUs
(facts_scan/core.py calls it last).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from gpudoctor.pasted.build import listed_names
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import bounded_line, iter_lines

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Architecture

# a count is a number of its own: the "50" of "driver 550 NVIDIA A100" is not one, nor the
# "31" of a hex PCI device id ("0x2C31 NVIDIA H100"): it cannot follow a letter or digit
_COUNT = re.compile(
    r"(?<![\w.])(?:(\d{1,2})\s{0,2}[x\u00d7*]\s{0,2}|(\d{1,2})\s{1,2})$", re.IGNORECASE
)
_SUFFIX_COUNT = re.compile(r"^\s{0,2}[x\u00d7*]\s{0,2}(\d{1,2})\b", re.IGNORECASE)
_MODEL_NEEDLES_BELOW = 200_000  # characters; a long log is searched by the context words only
_GPU_CONTEXT = ("gpu", "nvidia", "tesla", "geforce", "quadro", "rtx", "gb", "card", "device")
# a GeForce model's number written alone ("4090") is a GPU only beside these words
_BARE_NUMBER_CONTEXT = ("gpu", "nvidia", "geforce", "graphics card", "video card")
# A word of a line; "RTX3090" and "GTX1080" (the brand written against the number, as people
# type it) are two words, as the matrix spells the models.
# A sentence's full stop is not part of the name it ends ("on a Jetson Orin Nano.").
_TOKEN = re.compile(r"(?:RTX|GTX)(?=\d{3,4})|[^\s\-_/(),:;=\"'\[\]]*[^\s\-_/(),:;=\"'\[\].!?]")
_SPLIT = re.compile(r"[\s\-_/(),:;=\"'\[\]]+")


def gpu_models(architectures: Sequence[Architecture]) -> dict[tuple[str, ...], set[str]]:
    """Each model name of the matrix as upper-case tokens -> the compute capabilities it has."""
    out: dict[tuple[str, ...], set[str]] = {}
    for arch in architectures:
        listed = (*arch.datacenter_gpus, *arch.consumer_gpus)
        for example in (name for entry in listed for name in listed_names(entry)):
            tokens = tuple(t for t in _SPLIT.split(example.upper()) if t)
            if len(tokens) >= 3 and tokens[-1] in _VARIANT_SUFFIXES:
                # the model a listed variant varies ("GeForce GTX 1660" of "... 1660 Ti")
                base = tokens[:-1]
                out.setdefault(base, set()).add(arch.compute_capability)
                if base[0] in ("GEFORCE", "TESLA", "QUADRO", "NVIDIA"):
                    out.setdefault(base[1:], set()).add(arch.compute_capability)
            if tokens:
                out.setdefault(tokens, set()).add(arch.compute_capability)
                # "GeForce RTX 4090" is also written "RTX 4090"; "Tesla T4" also "T4"
                if len(tokens) > 1 and tokens[0] in ("GEFORCE", "TESLA", "QUADRO", "NVIDIA"):
                    out.setdefault(tokens[1:], set()).add(arch.compute_capability)
                # and "Nvidia 4090": the vendor before the bare number (never the number alone)
                if len(tokens) > 2 and tokens[0] == "GEFORCE" and tokens[1] in ("RTX", "GTX"):
                    out.setdefault(("NVIDIA", *tokens[2:]), set()).add(arch.compute_capability)
                    # and the number alone ("my 4090", "1050ti graphics card"), read only on
                    # a line that says it is a GPU (_names_in_line); four digits only: a
                    # three-digit value is too often another number ("compute_capability = 750")
                    if tokens[2].isdecimal() and len(tokens[2]) == 4:
                        out.setdefault(tokens[2:], set()).add(arch.compute_capability)
                # "RTX A6000" is also written "A6000" (a lettered model, never a bare number)
                if len(tokens) == 2 and tokens[0] == "RTX" and tokens[1][:1].isalpha():
                    out.setdefault(tokens[1:], set()).add(arch.compute_capability)
    for alias, ccs in jetson_aliases(architectures).items():
        out.setdefault(alias, set()).update(ccs)
    return out


_JETSON = "JETSON"


def jetson_aliases(architectures: Sequence[Architecture]) -> dict[tuple[str, ...], set[str]]:
    """How people name the Jetson modules the matrix lists as "Jetson ...": without "Jetson"
    ("Orin Nano", "AGX Xavier"), with the words in another order ("Jetson Nano Orin", "Orin
    AGX"), or by the family word every module of one compute capability holds ("Jetson Orin",
    "Orin": jtop's and collect_env's "Orin (nvgpu)"), never by a word another family shares
    ("AGX", "Nano")."""
    by_cc: dict[str, list[tuple[str, ...]]] = {}
    for arch in architectures:
        for example in arch.datacenter_gpus:
            tokens = tuple(t for t in _SPLIT.split(example.upper()) if t)
            if len(tokens) >= 2 and tokens[0] == _JETSON:
                by_cc.setdefault(arch.compute_capability, []).append(tokens[1:])
    out: dict[tuple[str, ...], set[str]] = {}
    for cc, tails in by_cc.items():
        for tail in tails:
            if len(tail) == 2:
                for words in (tail, tail[::-1]):
                    out.setdefault(words, set()).add(cc)
                    out.setdefault((_JETSON, *words), set()).add(cc)
        others = {t for other, ts in by_cc.items() if other != cc for tail in ts for t in tail}
        common = set(tails[0]).intersection(*tails[1:]) - others
        for word in common:
            out.setdefault((word,), set()).add(cc)
            out.setdefault((_JETSON, word), set()).add(cc)
    return out


# A variant's suffix: a "GeForce RTX 3060 Ti", "RTX 2060 SUPER" or "RTX 3080 Laptop GPU" is of
# the same GPU generation, and compute capability, as the model it varies.
_VARIANT_SUFFIXES = frozenset({"TI", "SUPER", "LAPTOP", "MOBILE", "MAX-Q", "MAXQ"})
_GLUED_SUFFIX = re.compile(r"(?<=\d)(?=(?:ti|super)\b)", re.IGNORECASE)


def read_names(
    text: str, lower: str, draft: Draft, architectures: Sequence[Architecture], section: str
) -> None:
    """GPUs named in prose ("4x A100 80GB"), only when no block listed the GPUs."""
    if draft.gpus or not architectures:
        draft.named_gpus.clear()
        return
    models = gpu_models(architectures)
    aliases = jetson_aliases(architectures)
    last_tokens = {tokens[-1] for tokens in models}
    by_first = models_by_first(models)
    # a Jetson family word alone ("Orin") is a GPU only beside a word about GPUs or Jetsons
    alone = frozenset(a[0] for a in aliases if len(a) == 1)
    context = Context(alone, brand_bare_words(architectures), architecture_words(architectures))
    found: list[tuple[str, int, str | None, int]] = []  # name, count, cc, line number
    seen_lines: set[int] = set()
    for name, count, number in draft.named_gpus:
        found.append((name, count, _cc_of(name.upper(), models), number))
    needles = ["gpu", "nvidia", "tesla", "geforce", "rtx", " x ", "x ", "gb"]
    if len(text) < _MODEL_NEEDLES_BELOW:  # a short paste: every model name is a needle too
        needles += sorted({t.lower() for t in last_tokens if len(t) >= 3})
    for needle in needles:
        for start, line in iter_lines(lower, text, needle):
            if start in seen_lines or len(seen_lines) > 2000:
                continue
            seen_lines.add(start)
            bounded = bounded_line(lower, line, start, (needle,))
            names = _names_in_line(bounded, by_first, last_tokens, context)
            if names:  # counted once per line: a count per name is quadratic on a long paste
                number = text.count("\n", 0, start) + 1
                found.extend((name, count, cc, number) for name, count, cc in names)
    # else a name printed after a device key, of a model the matrix does not list
    found = found or [(n, 1, _cc_of(n.upper(), models), at) for n, at in draft.answered_gpus]
    found = found or _unlisted_models(text, lower)
    if not found:
        return
    # a Jetson module named without "Jetson" keeps the word, so that it is known for one
    found = [(_jetson_named_gpu(n, aliases), c, cc, num) for n, c, cc, num in found]
    # One host's GPUs: the first name given; a second, different model is a note.
    name, count, cc, number = found[0]
    for index in range(min(count, 64)):
        gpu = draft.gpu(index)
        put(gpu, "name", name)
        if cc:
            put(gpu, "compute_capability", cc)
    draft.section(section)
    draft.ranges.append((section, number, number))
    draft.gpus_from_text = True
    if cc is None:
        draft.note(_unknown_cc_note(name, models))
    # a shorter name of the same GPU ("GeForce RTX 3060" of "NVIDIA GeForce RTX 3060", its
    # words within the first name's) is no other model; "A10" beside "A100" is
    others = sorted({n for n, _, _, _ in found[1:] if not _words_within(n, name)})
    if others:
        draft.note("other GPU models named in the text: " + ", ".join(others[:5]))


# A model the matrix does not list, named the way NVIDIA names its products: the GeForce
# brand and series before the model number ("GeForce GTX 1650 Mobile", "NVIDIA GeForce RTX 2060
# SUPER"), or NVIDIA's name before a Quadro/Tesla/TITAN model ("NVIDIA Quadro RTX 4000",
# "NVIDIA Tesla P100"). GeForce is NVIDIA's word alone; the others need NVIDIA before them
# ("Tesla" is also a car, "Titan" a word). Its compute capability stays unknown.
_UNLISTED = re.compile(
    r"(?<![\w-])(?:NVIDIA\s)?GeForce\s(?:RTX|GTX|GTS|GT|MX)\s?\d{3,4}[A-Z]?"
    r"(?:\s(?:Ti|SUPER|Laptop GPU|Mobile|Max-Q))?(?![\w-])"
    r"|(?<![\w-])NVIDIA\s(?:Quadro|Tesla|TITAN)\s(?:RTX\s)?[A-Z]{0,3}\d{0,5}[A-Z]{0,3}(?![\w-])",
    re.IGNORECASE,
)


def _unlisted_models(text: str, lower: str) -> list[tuple[str, int, str | None, int]]:
    """The first product name of a model the matrix does not list (_UNLISTED)."""
    for needle in ("geforce", "nvidia "):
        for start, line in iter_lines(lower, text, needle):
            m = _UNLISTED.search(bounded_line(lower, line, start, (needle,)))
            if m is not None and any(c.isdecimal() for c in m.group(0)):
                return [(m.group(0), 1, None, text.count("\n", 0, start) + 1)]
    return []


def _jetson_named_gpu(name: str, aliases: dict[tuple[str, ...], set[str]]) -> str:
    tokens = tuple(m.group(0) for m in _TOKEN.finditer(name.upper()))
    return f"Jetson {name}" if tokens in aliases and tokens[0] != _JETSON else name


def _words_within(short: str, name: str) -> bool:
    """Whether the words of `short` appear, in order and together, among those of `name`."""
    want = [t for t in _SPLIT.split(short.upper()) if t]
    have = [t for t in _SPLIT.split(name.upper()) if t]
    n = len(want)
    return any(have[i : i + n] == want for i in range(len(have) - n + 1))


def _unknown_cc_note(name: str, models: dict[tuple[str, ...], set[str]]) -> str:
    if len(_ccs_of(name.upper(), models)) > 1:
        return f"'{name}' fits GPU models of different compute capabilities: it stays unknown"
    return f"'{name}' is a GPU model the matrix does not list: its compute capability stays unknown"


def _cc_of(name: str, models: dict[tuple[str, ...], set[str]]) -> str | None:
    ccs = _ccs_of(name, models)
    return next(iter(ccs)) if len(ccs) == 1 else None


def _ccs_of(name: str, models: dict[tuple[str, ...], set[str]]) -> set[str]:
    """The compute capabilities of the longest models the name holds; empty: none listed."""
    tokens = [t for t in _SPLIT.split(name) if t]
    best: dict[int, set[str]] = {}
    for want, ccs in models.items():
        n = len(want)
        if any(tuple(tokens[i : i + n]) == want for i in range(len(tokens) - n + 1)):
            best.setdefault(n, set()).update(ccs)
    return best[max(best)] if best else set()


_MAX_NAMES_PER_LINE = 64  # a line naming more GPUs than a host holds is a table or noise


Models = dict[tuple[str, ...], set[str]]
ByFirst = dict[str, list[tuple[tuple[str, ...], set[str]]]]


def models_by_first(models: Models) -> ByFirst:
    """The models grouped by their first token, so that a line is matched against the few
    models that begin with each of its words."""
    index: ByFirst = {}
    for want, cc in models.items():
        index.setdefault(want[0], []).append((want, cc))
    return index


_JETSON_CONTEXT = (*_GPU_CONTEXT, "jetson", "jetpack", "l4t", "tegra", "cuda", "nvgpu")


class Context(NamedTuple):
    """What a line's words are read against besides the models (read_names builds it once)."""

    alone: frozenset[str] = frozenset()  # Jetson family words: a GPU only beside a GPU word
    brand_bare: frozenset[str] = frozenset()  # "T400" of "NVIDIA T400": likewise
    # "ADA" -> the compute capabilities of the architectures its word names
    architectures: Mapping[str, set[str]] = MappingProxyType({})


def brand_bare_words(architectures: Sequence[Architecture]) -> frozenset[str]:
    """The one-word models only the brand-less form of a listed "NVIDIA T400" gives: NVIDIA's
    product name holds "NVIDIA", so the word alone ("on T500 build hosts") is a GPU only beside
    a word about GPUs. A model listed as one word ("A100") is not among them."""
    bare: set[str] = set()
    single: set[str] = set()
    for arch in architectures:
        for entry in (*arch.datacenter_gpus, *arch.consumer_gpus):
            for example in listed_names(entry):
                tokens = [t for t in _SPLIT.split(example.upper()) if t]
                if len(tokens) == 1:
                    single.add(tokens[0])
                elif len(tokens) == 2 and tokens[0] == "NVIDIA":
                    bare.add(tokens[1])
    return frozenset(bare - single)


def architecture_words(architectures: Sequence[Architecture]) -> dict[str, set[str]]:
    """Each word of the architectures' names ("ADA", "LOVELACE", "HOPPER") -> their CCs."""
    out: dict[str, set[str]] = {}
    for arch in architectures:
        for word in arch.name.upper().split():
            out.setdefault(word, set()).add(arch.compute_capability)
    return out


def _singular(
    span: tuple[int, int, str], by_first: ByFirst, last_tokens: set[str]
) -> tuple[int, int, str]:
    """A model token in the plural ("8 A100s", "our H100s", "RTX 4090s") as the model, unless
    the token with its S is a model of its own (L40S, V100S)."""
    start, end, token = span
    if (
        len(token) > 2
        and token.endswith("S")
        and token[-2].isdecimal()
        and token not in by_first
        and token not in last_tokens
        and (token[:-1] in by_first or token[:-1] in last_tokens)
    ):
        return start, end - 1, token[:-1]
    return span


def _names_in_line(
    line: str, by_first: ByFirst, last_tokens: set[str], context: Context | None = None
) -> list[tuple[str, int, str | None]]:
    context = context or Context()
    line = _GLUED_SUFFIX.sub(" ", line)  # "RTX 3090Ti" is "RTX 3090 Ti"
    upper = line.upper()
    spans = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(upper)]
    spans = [_singular(span, by_first, last_tokens) for span in spans]
    tokens = [s[2] for s in spans]
    if not any(t in last_tokens for t in tokens):
        return []
    lowered = line.lower()
    out: list[tuple[str, int, str | None]] = []
    i = 0
    while i < len(tokens) and len(out) < _MAX_NAMES_PER_LINE:
        # only the models that begin with this token: a line of a thousand words costs a
        # thousand dictionary looks, not a thousand times every model of the matrix
        fits = [
            (want, cc)
            for want, cc in by_first.get(tokens[i], ())
            if tuple(tokens[i : i + len(want)]) == want
        ]
        if not fits:
            i += 1
            continue
        n = max(len(want) for want, _ in fits)
        # every model spelled by these tokens (A10 and A100 never share a token; "A10/A100"
        # names two models and is two matches)
        ccs: set[str] = set()
        for want, cc in fits:
            if len(want) == n:
                ccs |= cc
        after = tokens[i + n] if i + n < len(tokens) else ""
        if after == "SERIES":  # "RTX 4000 series": a family of GPUs, no model of the lists
            i += n + 1
            continue
        if after in context.architectures and not ccs & context.architectures[after]:
            # "RTX 3000 Ada": a listed model's words (Quadro RTX 3000, Turing) before the name
            # of another architecture are another product, whose CC the lists do not give
            ccs, n = set(), n + 1
        name = line[spans[i][0] : spans[i + n - 1][1]]
        short = n == 1 and (len(tokens[i]) <= 3 or tokens[i] in context.brand_bare)
        if tokens[i].isdecimal() and (
            not any(c in lowered for c in _BARE_NUMBER_CONTEXT)
            or (i > 0 and tokens[i - 1] in ("PORT", "PID", "BUILD", "VERSION"))
            or line[: spans[i][0]].rstrip().endswith("=")  # a value: "capability = 7500"
        ):
            i += n
            continue
        if short and not any(c in lowered for c in _GPU_CONTEXT):
            i += n
            continue
        if _is_option(line, spans[i][0]):
            i += n
            continue
        if n == 1 and tokens[i] in context.alone and not any(c in lowered for c in _JETSON_CONTEXT):
            i += n
            continue
        count = _count(line, spans[i][0], spans[i + n - 1][1])
        out.append((name, count, next(iter(ccs)) if len(ccs) == 1 else None))
        i += n
    if len(out) > 1 and len({cc for _, _, cc in out}) > 1 and _joined(line, out):
        # "A10/A100": one GPU written as two candidates that disagree: its CC stays unknown
        return [("/".join(n for n, _, _ in out), out[0][1], None)]
    return out


def _is_option(line: str, start: int) -> bool:
    """A word written as a command's option ("grep -A2", "grep -A10 MIG", "--A100"): the dash
    stands at the start of the word; a name's own dashes ("NVIDIA-A100-SXM4") follow a letter."""
    dashes = len(line[:start]) - len(line[:start].rstrip("-"))
    return 0 < dashes <= 2 and (start == dashes or line[start - dashes - 1].isspace())


def _joined(line: str, names: list[tuple[str, int, str | None]]) -> bool:
    return "/".join(n for n, _, _ in names) in line


_BRAND_BEFORE = re.compile(r"(?:nvidia|geforce|tesla|quadro)\s{1,2}$", re.IGNORECASE)
_MEMORY_BEFORE = re.compile(r"(?<![\w.])\d{1,3}\s{0,2}GB\s{1,2}$", re.IGNORECASE)
_COUNT_WORDS = {"dual": 2, "two": 2, "quad": 4, "four": 4, "eight": 8}
_COUNT_WORD = re.compile(r"\b(dual|two|quad|four|eight)\s{1,2}$", re.IGNORECASE)


def _count(line: str, start: int, end: int) -> int:
    # "2x NVIDIA RTX 4000 Ada": the brand word stands between the count and the model
    brand = _BRAND_BEFORE.search(line[max(0, start - 10) : start])
    if brand:
        start -= len(brand.group(0))
    # "8x 16GB NVIDIA V100": the memory of each stands there too
    memory = _MEMORY_BEFORE.search(line[max(0, start - 10) : start])
    if memory:
        start -= len(memory.group(0))
    word = _COUNT_WORD.search(line[max(0, start - 8) : start])
    if word:  # "dual RTX 3090", "two Tesla T4"
        return _COUNT_WORDS[word.group(1).lower()]
    before = _COUNT.search(line[max(0, start - 8) : start])
    if before:
        return int(before.group(1) or before.group(2) or 1) or 1
    after = _SUFFIX_COUNT.match(line[end : end + 8])
    if after:
        return int(after.group(1)) or 1
    return 1
