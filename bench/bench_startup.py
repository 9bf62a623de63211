"""Time start-up: `gpudoctor --help`, `gpudoctor matrix resolve --framework pytorch` and friends
as commands, and matrix loading and resolving in-process.

    python bench/bench_startup.py [--runs N]

Prints markdown tables (median, min, max of N runs, seconds) for bench/README.md, section
"Start-up". Commands run through the installed `gpudoctor` script (else `python -m gpudoctor`);
the first run of each is a warm-up and is not counted (page cache, .pyc files).
Budget: `gpudoctor --help` < 0.1 s (the script exits 1 when it is over).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HELP_BUDGET_S = 0.10

COMMANDS: list[tuple[str, list[str]]] = [
    ("`python -c pass` (interpreter floor)", []),
    ("`gpudoctor --version`", ["--version"]),
    ("`gpudoctor --help`", ["--help"]),
    ("`gpudoctor check --help`", ["check", "--help"]),
    ("`gpudoctor matrix --help`", ["matrix", "--help"]),
    (
        "`gpudoctor matrix resolve --framework pytorch`",
        ["matrix", "resolve", "--framework", "pytorch"],
    ),
    ("`gpudoctor matrix validate`", ["matrix", "validate"]),
    ("`gpudoctor matrix list --format json`", ["matrix", "list", "--format", "json"]),
]


def _prefix() -> list[str]:
    script = shutil.which("gpudoctor")
    return [script] if script else [sys.executable, "-m", "gpudoctor"]


def time_command(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + sys) seconds of each run; CPU time is the steadier figure on a
    shared machine, where waiting for a core counts in wall time only."""
    argv = [*_prefix(), *args] if args else [sys.executable, "-c", "pass"]
    walls, cpus = [], []
    for index in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if index:  # the first run warms the page cache
            walls.append(time.perf_counter() - started)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def time_call(call: Callable[[], object], runs: int) -> list[float]:
    call()  # warm-up: imports
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        walls.append(time.perf_counter() - started)
    return walls


def in_process(runs: int) -> list[tuple[str, list[float]]]:
    from gpudoctor.compat.request import ResolveRequest
    from gpudoctor.compat.resolve import all_rows, resolve
    from gpudoctor.matrix import cache
    from gpudoctor.matrix.load import parse_matrix
    from gpudoctor.resources import default_matrix_path

    path = default_matrix_path()
    text = path.read_text(encoding="utf-8")
    matrix = parse_matrix(text, path)
    cache.store(path, text.encode("utf-8"), matrix)
    request = ResolveRequest(framework="pytorch")
    return [
        (
            "parse + validate compat.toml (uncached)",
            time_call(lambda: parse_matrix(text, path), runs),
        ),
        (
            "load the validated matrix from the per-user cache",
            time_call(lambda: cache.load(path, text.encode("utf-8")), runs),
        ),
        ("resolve(pytorch), no constraints", time_call(lambda: resolve(matrix, request), runs)),
        ("all_rows() (render --all)", time_call(lambda: all_rows(matrix), runs)),
    ]


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def compile_sources() -> None:
    """Byte-compile gpudoctor first: pip does that for an installed copy, but a source checkout
    under PYTHONDONTWRITEBYTECODE=1 would otherwise compile every changed module on every run
    (tens of ms) and measure the compiler, not gpudoctor."""
    source = Path(__file__).resolve().parents[1] / "gpudoctor"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(source)], check=True)


def main() -> int:
    compile_sources()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    print(f"runs: {runs}; command: {' '.join(Path(p).name for p in _prefix())}\n")
    print("| command | median s | min s | max s | median CPU s |")
    print("| --- | --- | --- | --- | --- |")
    medians = {}
    for name, args in COMMANDS:
        walls, cpus = time_command(args, runs)
        # Start-up is one thread: on an idle machine wall time is its CPU time (plus I/O from a
        # warm page cache). Judge on the smaller of the two medians, so that a busy shared
        # machine (other jobs waiting for the same cores) does not decide the verdict.
        medians[name] = min(statistics.median(walls), statistics.median(cpus))
        print(f"{row(name, walls)} {statistics.median(cpus):.3f} |")
    print("\n| in-process | median s | min s | max s |\n| --- | --- | --- | --- |")
    for name, walls in in_process(runs):
        print(row(name, walls))
    help_median = medians["`gpudoctor --help`"]
    verdict = "within" if help_median < HELP_BUDGET_S else "OVER"
    print(
        f"\n`gpudoctor --help`: {help_median:.3f} s (the smaller of the wall and CPU medians), "
        f"{verdict} the {HELP_BUDGET_S} s budget"
    )
    return 0 if help_median < HELP_BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
