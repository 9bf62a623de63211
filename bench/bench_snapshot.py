"""Time the host snapshot: `collect_facts()` in-process and `gpudoctor snapshot` as a command.

    python bench/bench_snapshot.py [--runs N]

Prints a markdown table (median, min, max of N runs, seconds) plus the median per probe, for
bench/README.md. The first in-process run is a warm-up and is not counted (imports, page cache).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import defaultdict


def time_collect(runs: int) -> tuple[list[float], dict[str, list[float]]]:
    from gpudoctor.probes import collect_facts

    collect_facts()  # warm-up
    walls: list[float] = []
    probes: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        started = time.perf_counter()
        facts = collect_facts()
        walls.append(time.perf_counter() - started)
        for timing in facts.timings:
            probes[timing.probe].append(timing.seconds)
    return walls, probes


def time_command(args: list[str], runs: int) -> list[float]:
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "gpudoctor", *args],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls.append(time.perf_counter() - started)
    return walls


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    collect, probes = time_collect(runs)
    print(f"runs: {runs}\n")
    print("| what | median s | min s | max s |\n| --- | --- | --- | --- |")
    print(row("collect_facts() in-process", collect))
    print(row("`gpudoctor snapshot`", time_command(["snapshot"], runs)))
    print(row("`gpudoctor snapshot --no-docker`", time_command(["snapshot", "--no-docker"], runs)))
    print(row("`gpudoctor --version` (start-up floor)", time_command(["--version"], runs)))
    print("\n| probe (in-process, concurrent) | median s |\n| --- | --- |")
    for name, values in probes.items():
        print(f"| {name} | {statistics.median(values):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
