"""Time reading a 10 MB paste (`check --from report.txt`): the budget is under one second.

    python bench/bench_pasted.py [--runs N] [--mb 10]

Each case is about `--mb` megabytes: a real report buried in a long log, and hostile shapes
built to make a naive regex backtrack (table-like lines, unclosed tags, endless `GPU N:`
prefixes, a single line without a newline). Prints a markdown table (median, min, max of N runs,
seconds) of `read_report` in-process, plus one `gpudoctor check --from` run per case.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "tests" / "data" / "reports" / "pytorch-150733-rtx5090d-sm120.txt"


def cases(size: int) -> dict[str, str]:
    report = REPORT.read_text(encoding="utf-8")
    log = "2025-01-01 10:00:00 INFO step 1234 loss=0.4321 lr=3e-4 tokens/s=123456\n"
    return {
        "report in a long log": (log * (size // len(log))) + report,
        "table-like lines": ("|   0  " + " " * 60 + "Off |" + " " * 30 + "|\n") * (size // 100),
        "unclosed XML tags": "<nvidia_smi_log>\n"
        + ('<gpu id="' + " " * 200 + "\n") * (size // 210),
        "deep XML": "<nvidia_smi_log>\n" + "<gpu><pci><a>1</a>\n" * (size // 20),
        "nvidia-smi -q, endless": "==NVSMI LOG==\n" + "    Product Name : x\n" * (size // 20),
        "many GPU prefixes": ("GPU 0: " * 10 + "\n") * (size // 71),
        "one line, no newline": "torch " + "9" * size,
        "error lines repeated": (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
            * (size // 84)
        ),
    }


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        with contextlib.suppress(Exception):  # garbage is refused (FactsError): time only
            fn()
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mb", type=float, default=10.0)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from gpudoctor.matrix.load import load_matrix
    from gpudoctor.pasted.dispatch import read_report

    arch = load_matrix().architectures
    size = int(args.mb * 2**20)
    print(f"| paste (~{args.mb:g} MB) | read_report median s | min s | max s | `check --from` s |")
    print("| --- | --- | --- | --- | --- |")
    for name, text in cases(size).items():
        walls = timed(lambda text=text: read_report(text, "bench", arch), args.runs)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        started = time.perf_counter()
        cmd = [sys.executable, "-m", "gpudoctor", "check", "--from", f.name]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        cli = time.perf_counter() - started
        Path(f.name).unlink()
        print(
            f"| {name} ({len(text) / 2**20:.1f} MB) | {statistics.median(walls):.3f} | "
            f"{min(walls):.3f} | {max(walls):.3f} | {cli:.3f} |"
        )


if __name__ == "__main__":
    main()
