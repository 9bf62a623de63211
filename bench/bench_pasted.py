"""Time reading a 10 MB paste (`check --from report.txt`): the budget is under one second.

    python bench/bench_pasted.py [--runs N] [--mb 10]

Each case is about `--mb` megabytes: a real report buried in a long log, and hostile shapes
built to make a naive regex backtrack (table-like lines, unclosed tags, endless `GPU N:`
prefixes, a single line without a newline). Prints a markdown table (median, min, max of N runs,
seconds, and the median CPU seconds) of `read_report` in-process, plus one `gpudoctor check
--from` run per case, wall and CPU (gpudoctor byte-compiled first, as an installed copy is). On a
busy shared machine compare the CPU columns: wall time there includes waiting for a core.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
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
        "tracebacks repeated": (
            "Traceback (most recent call last):\n"
            '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1'
            ", in f\n    x = f()\nValueError: bad value\n"
        )
        * (size // 140),
        "unknown error lines": "ERROR worker failed: Segmentation fault (core dumped) "
        + ("exit code 1 " * 160 + "\n") * (size // 1900),
    }


def timed(fn: Callable[[], object], runs: int) -> list[tuple[float, float]]:
    """(wall s, CPU s) of each run: on a busy shared machine the CPU time is the steadier one."""
    out = []
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        with contextlib.suppress(Exception):  # garbage is refused (FactsError): time only
            fn()
        out.append((time.perf_counter() - started, time.process_time() - cpu))
    return out


def check_from(path: str) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one `gpudoctor check --from PATH` run, from this tree."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONSAFEPATH": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "gpudoctor", "check", "--from", path]
    subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=ROOT
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    # measure gpudoctor, not the byte compiler (PYTHONDONTWRITEBYTECODE would recompile each run)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "gpudoctor")], check=True)
    print(
        f"| paste (~{args.mb:g} MB) | read_report median s | min s | max s | median CPU s "
        "| `check --from` s | its CPU s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, text in cases(size).items():
        runs = timed(lambda text=text: read_report(text, "bench", arch), args.runs)
        walls = [wall for wall, _ in runs]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        cli, cli_cpu = check_from(f.name)
        Path(f.name).unlink()
        print(
            f"| {name} ({len(text) / 2**20:.1f} MB) | {statistics.median(walls):.3f} | "
            f"{min(walls):.3f} | {max(walls):.3f} | {statistics.median(c for _, c in runs):.3f} "
            f"| {cli:.3f} | {cli_cpu:.3f} |"
        )


if __name__ == "__main__":
    main()
