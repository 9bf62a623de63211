"""Score `gpudoctor check --from PASTE` on the corpus of real reports, by part and by layer.

    python bench/bench_corpus.py [--json] [--part tuning|held|all] [--case ID] [-v] [--jobs N]

Each case of tests/data/corpus/cases is one public thread: the paste is written to a file and
judged by `python -m gpudoctor check --from FILE --format json` (the command a user runs, in a
subprocess: exactly the CLI path, nothing stubbed). A case passes when

- every expected finding is present: one of its codes at one of its severities, and
- no other finding is a warn or an error (a false alarm next to the right answer counts against
  it), except codes the case lists under `tolerate` (a second real problem the paste shows);
- a benign case passes when no finding is a warn or an error; a paste answered with exit 2
  ("no report recognised", or any usage error) fails whatever it expected.

`words` is scored apart (not part of the pass): whether the expected findings' title, detail and
fix contain each word (case-insensitive), i.e. whether the diagnosis names the cause.
The tuning and held-aside parts come from tests/data/corpus/split.toml (bench/corpus_cases.py).
The score is reported, never asserted: this script exits 0 whatever it is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_cases import LAYERS, ROOT, Case, load_cases, read_split

BAD = ("warn", "error")


@dataclass
class Outcome:
    case: Case
    part: str
    exit_code: int
    findings: list[dict[str, str]] = field(default_factory=list)
    passed: bool = False
    words_hit: int = 0
    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    note: str = ""


def run_check(paste: str) -> tuple[int, dict[str, Any] | None, str]:
    """Judge one paste with the real CLI; (exit code, parsed JSON or None, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.txt"
        path.write_text(paste, encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.run(
            [sys.executable, "-m", "gpudoctor", "check", "--from", str(path), "--format", "json"],
            capture_output=True,
            text=True,
            cwd=tmp,
            env=env,
            timeout=120,
            check=False,
        )
    try:
        doc = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return proc.returncode, doc if isinstance(doc, dict) else None, proc.stderr.strip()


def findings_of(doc: dict[str, Any]) -> list[dict[str, str]]:
    """The findings of one host, or the problems of a fleet (several hosts in one paste)."""
    if doc.get("kind") == "gpudoctor-fleet":
        rows = doc.get("problems", [])
    else:
        rows = doc.get("findings", [])
    out = []
    for f in rows:
        if isinstance(f, dict):
            text = " ".join(str(f.get(k, "")) for k in ("title", "detail", "fix"))
            code, severity = str(f.get("code")), str(f.get("severity"))
            out.append({"code": code, "severity": severity, "text": text})
    return out


def judge(case: Case, part: str, exit_code: int, doc: dict[str, Any] | None, err: str) -> Outcome:
    out = Outcome(case, part, exit_code)
    if doc is None or exit_code == 2 or ("error" in doc and "findings" not in doc):
        first = (err.splitlines() or ["no JSON"])[0]
        out.note = re.sub(r"\S*report\.txt", "PASTE", first)[:120]
        out.missing = ["(report not read)"]
        return out
    out.findings = findings_of(doc)
    expected_codes = {c for e in case.expected for c in e.codes}
    matched: list[dict[str, str]] = []
    for e in case.expected:
        hits = [f for f in out.findings if f["code"] in e.codes and f["severity"] in e.severities]
        if hits:
            matched += hits
        else:
            out.missing.append(f"{'|'.join(e.codes)}@{'|'.join(e.severities)}")
    allowed = expected_codes | set(case.tolerate)
    out.unexpected = sorted(
        {f"{f['code']}@{f['severity']}" for f in out.findings if f["severity"] in BAD}
        - {f"{f['code']}@{f['severity']}" for f in out.findings if f["code"] in allowed}
    )
    out.passed = not out.missing and not out.unexpected
    text = " ".join(f["text"] for f in matched).lower()
    out.words_hit = sum(w.lower() in text for w in case.words)
    return out


def score(outcomes: list[Outcome]) -> dict[str, Any]:
    def part_score(items: list[Outcome]) -> dict[str, Any]:
        by_layer = {}
        for layer in LAYERS:
            sel = [o for o in items if o.case.layer == layer]
            if sel:
                by_layer[layer] = {"passed": sum(o.passed for o in sel), "cases": len(sel)}
        words_total = sum(len(o.case.words) for o in items)
        return {
            "passed": sum(o.passed for o in items),
            "cases": len(items),
            "benign_passed": sum(o.passed for o in items if o.case.benign),
            "benign": sum(o.case.benign for o in items),
            "unread": sum(o.missing == ["(report not read)"] for o in items),
            "words_hit": sum(o.words_hit for o in items),
            "words": words_total,
            "by_layer": by_layer,
        }

    return {
        "tuning": part_score([o for o in outcomes if o.part == "tuning"]),
        "held": part_score([o for o in outcomes if o.part == "held"]),
        "all": part_score(outcomes),
        "cases": [
            {
                "id": o.case.case_id,
                "part": o.part,
                "layer": o.case.layer,
                "benign": o.case.benign,
                "passed": o.passed,
                "exit_code": o.exit_code,
                "missing": o.missing,
                "unexpected": o.unexpected,
                "words_hit": o.words_hit,
                "words": len(o.case.words),
                "note": o.note,
            }
            for o in outcomes
        ],
    }


def pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "-"


def table(result: dict[str, Any]) -> str:
    parts = ("tuning", "held", "all")
    lines = [
        "| layer | " + " | ".join(parts) + " |",
        "| --- | " + " | ".join("---" for _ in parts) + " |",
    ]
    for layer in LAYERS:
        cells = []
        for p in parts:
            s = result[p]["by_layer"].get(layer)
            cells.append(pct(s["passed"], s["cases"]) if s else "-")
        lines.append(f"| {layer} | " + " | ".join(cells) + " |")
    for label, num, den in (
        ("**total**", "passed", "cases"),
        ("benign (no false alarm)", "benign_passed", "benign"),
        ("words named", "words_hit", "words"),
    ):
        cells = [pct(result[p][num], result[p][den]) for p in parts]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(
        "| not read (exit 2) | " + " | ".join(str(result[p]["unread"]) for p in parts) + " |"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.add_argument("--part", choices=("tuning", "held", "all"), default="all")
    parser.add_argument("--case", action="append", default=[], help="only this case id")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    _, _, held = read_split()
    held_set = set(held)
    cases = [
        c
        for c in load_cases()
        if (not args.case or c.case_id in args.case)
        and (args.part == "all" or (args.part == "held") == (c.case_id in held_set))
    ]

    def one(case: Case) -> Outcome:
        part = "held" if case.case_id in held_set else "tuning"
        return judge(case, part, *run_check(case.paste))

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(one, cases))
    result = score(outcomes)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    if args.verbose:
        for o in outcomes:
            mark = "PASS" if o.passed else "fail"
            why = "; ".join(
                x
                for x in (
                    f"missing {', '.join(o.missing)}" if o.missing else "",
                    f"false alarm {', '.join(o.unexpected)}" if o.unexpected else "",
                    o.note,
                )
                if x
            )
            print(f"{mark} {o.part:<6} {o.case.layer:<10} {o.case.case_id:<45} {why}")
        print()
    print(table(result))


if __name__ == "__main__":
    main()
