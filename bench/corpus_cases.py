"""The corpus of real reports (tests/data/corpus): load the case files, check their form, split.

Used by bench/bench_corpus.py (the score) and tests/corpus/test_corpus_format.py (the form).
Each case is one public issue thread: the paste as posted, its settled cause and the verdict a
correct diagnosis gives (tests/data/corpus/README.md describes the format).

The split: a case is held aside when `random.Random(f"{seed}:{case_id}").random()` is below the
fraction. Each case's side depends only on the seed and its own id, so adding cases never moves a
case that was already in the tuning part into the held-aside part (a rank-based split would).
`python bench/corpus_cases.py --write-split` rewrites split.toml from the cases present.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus"
CASES = CORPUS / "cases"
SPLIT = CORPUS / "split.toml"

LAYERS = (
    "driver",
    "cuda",
    "framework",
    "library",
    "container",
    "kubernetes",
    "multigpu",
    "mig",
    "vgpu",
    "aarch64",
)
SEVERITIES = ("ok", "info", "warn", "error", "n/a", "unknown")
CODE_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*-[0-9]+$")
URL_RE = re.compile(
    r"^https://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(issues|pull)/([0-9]+)$"
)
KEYS = {
    "url",
    "repo",
    "title",
    "layer",
    "benign",
    "paste",
    "cause",
    "cause_source",
    "expected",
    "words",
    "tolerate",
}
REQUIRED = KEYS - {"tolerate"}


@dataclass(frozen=True)
class Expect:
    """One finding a correct diagnosis gives: any of `codes` at any of `severities`."""

    codes: tuple[str, ...]
    severities: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    case_id: str
    url: str
    repo: str
    title: str
    layer: str
    benign: bool
    paste: str
    cause: str
    cause_quote: str
    cause_url: str
    expected: tuple[Expect, ...]
    words: tuple[str, ...]
    tolerate: tuple[str, ...]


def _toml(text: str) -> dict[str, Any]:
    if str(ROOT) not in sys.path:  # run as a script from a checkout
        sys.path.insert(0, str(ROOT))
    from gpudoctor.tomlread import loads

    return loads(text)


def _strings(value: object, where: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        raise ValueError(f"{where}: a non-empty string or list of non-empty strings")
    return tuple(str(v) for v in items)


def _expect(raw: object, where: str) -> Expect:
    if not isinstance(raw, dict) or set(raw) != {"code", "severity"}:
        raise ValueError(f"{where}: each expected entry is {{code = ..., severity = ...}}")
    codes = _strings(raw["code"], f"{where}.code")
    severities = _strings(raw["severity"], f"{where}.severity")
    for code in codes:
        if not CODE_RE.match(code):
            raise ValueError(f"{where}.code: {code!r} is not a kebab-case finding code")
    for sev in severities:
        if sev not in SEVERITIES:
            raise ValueError(f"{where}.severity: {sev!r} is not one of {', '.join(SEVERITIES)}")
    return Expect(codes, severities)


def parse_case(path: Path) -> Case:  # noqa: PLR0912 (one check per key, in file order)
    """One case file, checked; ValueError names the file and the key that is wrong."""
    where = path.name
    try:
        doc = _toml(path.read_text(encoding="utf-8"))
    except Exception as exc:
        raise ValueError(f"{where}: not TOML: {exc}") from exc
    missing = REQUIRED - set(doc)
    unknown = set(doc) - KEYS
    if missing or unknown:
        raise ValueError(f"{where}: missing {sorted(missing)}, unknown {sorted(unknown)}")
    case_id = path.stem
    if not ID_RE.match(case_id):
        raise ValueError(f"{where}: the file name must be <repo>-<number>.toml, lower case")
    url = doc["url"]
    m = URL_RE.match(url) if isinstance(url, str) else None
    if not m:
        raise ValueError(f"{where}: url must be a GitHub issue or pull request URL")
    if m.group(1) != doc["repo"]:
        raise ValueError(f"{where}: repo {doc['repo']!r} is not the url's {m.group(1)!r}")
    name = m.group(1).split("/")[1].lower()
    long_name = m.group(1).replace("/", "-").lower()
    if case_id not in (f"{name}-{m.group(3)}", f"{long_name}-{m.group(3)}"):
        raise ValueError(f"{where}: file name should be {name}-{m.group(3)}.toml")
    if doc["layer"] not in LAYERS:
        raise ValueError(f"{where}: layer {doc['layer']!r} is not one of {', '.join(LAYERS)}")
    if not isinstance(doc["benign"], bool):
        raise ValueError(f"{where}: benign is true or false")
    for key in ("title", "paste", "cause"):
        if not isinstance(doc[key], str) or not doc[key].strip():
            raise ValueError(f"{where}: {key} must be a non-empty string")
    src = doc["cause_source"]
    if (
        not isinstance(src, dict)
        or set(src) != {"quote", "url"}
        or not all(isinstance(v, str) and v.strip() for v in src.values())
        or not str(src["url"]).startswith("https://")
    ):
        raise ValueError(f"{where}: cause_source is {{quote = '...', url = 'https://...'}}")
    raw_expected = doc["expected"]
    if not isinstance(raw_expected, list):
        raise ValueError(f"{where}: expected is a list")
    expected = tuple(_expect(e, f"{where}: expected[{i}]") for i, e in enumerate(raw_expected))
    if doc["benign"] and expected:
        raise ValueError(f"{where}: a benign case expects no finding (expected = [])")
    if not doc["benign"] and not expected:
        raise ValueError(f"{where}: a case that is not benign names the finding it expects")
    if any(sev in ("warn", "error") for e in expected for sev in e.severities) is False and (
        not doc["benign"]
    ):
        raise ValueError(f"{where}: a problem case expects at least one warn or error finding")
    words = doc["words"]
    if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"{where}: words is a list of strings")
    tolerate = doc.get("tolerate", [])
    if not isinstance(tolerate, list) or not all(
        isinstance(t, str) and CODE_RE.match(t) for t in tolerate
    ):
        raise ValueError(f"{where}: tolerate is a list of finding codes")
    return Case(
        case_id=case_id,
        url=url,
        repo=doc["repo"],
        title=doc["title"],
        layer=doc["layer"],
        benign=doc["benign"],
        paste=doc["paste"],
        cause=doc["cause"],
        cause_quote=src["quote"],
        cause_url=src["url"],
        expected=expected,
        words=tuple(words),
        tolerate=tuple(tolerate),
    )


def load_cases(folder: Path = CASES) -> list[Case]:
    """Every case, sorted by id."""
    return [parse_case(p) for p in sorted(folder.glob("*.toml"))]


def held_aside(case_id: str, seed: int, fraction: float) -> bool:
    """Whether a case is in the held-aside part: a function of the seed and its id only."""
    return random.Random(f"{seed}:{case_id}").random() < fraction


def read_split(path: Path = SPLIT) -> tuple[int, float, list[str]]:
    doc = _toml(path.read_text(encoding="utf-8"))
    return int(doc["seed"]), float(doc["fraction"]), [str(x) for x in doc["held_aside"]]


def compute_split(case_ids: list[str], seed: int, fraction: float) -> list[str]:
    return sorted(c for c in case_ids if held_aside(c, seed, fraction))


def choose_seed(cases: list[Case], base: int, fraction: float, tolerance: float = 0.03) -> int:
    """The first seed from `base` whose split holds at least one case of every layer aside and
    a share within `tolerance` of `fraction`. Run once, when the split is created (before any
    rule is written against the corpus); afterwards the committed seed stays."""
    ids = [c.case_id for c in cases]
    for seed in range(base, base + 100_000):
        held = set(compute_split(ids, seed, fraction))
        if abs(len(held) / len(ids) - fraction) > tolerance:
            continue
        if all(any(c.case_id in held for c in cases if c.layer == layer) for layer in LAYERS):
            return seed
    raise ValueError("no seed in range gives a stratified split")


def render_split(cases: list[Case], seed: int, fraction: float) -> str:
    held = compute_split([c.case_id for c in cases], seed, fraction)
    layers = {c.case_id: c.layer for c in cases}
    lines = [
        "# GENERATED by `python bench/corpus_cases.py --write-split`; do not edit by hand.",
        "# A case is held aside when random.Random(f'{seed}:{case_id}').random() < fraction:",
        "# its side depends only on the seed and its id (bench/corpus_cases.py). Never tune",
        "# a rule on a held-aside case. The seed was chosen once, when the split was created and",
        "# before any rule was written: the first from 20261201 that holds at least one case of",
        "# every layer aside with a share within 3 points of the fraction (--choose-seed).",
        f"seed = {seed}",
        f"fraction = {fraction}",
        "held_aside = [",
        *(f'    "{c}",  # {layers[c]}' for c in held),
        "]",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-split", action="store_true", help="rewrite split.toml")
    parser.add_argument(
        "--choose-seed",
        type=int,
        metavar="BASE",
        help="pick the first seed from BASE holding every layer aside (when creating the split)",
    )
    args = parser.parse_args()
    cases = load_cases()
    seed, fraction, _ = read_split()
    if args.choose_seed is not None:
        seed = choose_seed(cases, args.choose_seed, fraction)
    text = render_split(cases, seed, fraction)
    if args.write_split:
        SPLIT.write_text(text, encoding="utf-8")
    held = set(compute_split([c.case_id for c in cases], seed, fraction))
    for layer in LAYERS:
        ids = [c.case_id for c in cases if c.layer == layer]
        print(f"{layer:<11} {len(ids):>3} cases, {sum(i in held for i in ids):>2} held aside")
    print(f"{'all':<11} {len(cases):>3} cases, {len(held):>2} held aside")


if __name__ == "__main__":
    main()
