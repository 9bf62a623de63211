"""Time reading the shipped data files through the one data-file reader, in-process and without
the matrix's disk cache: parse and validate matrices/compat.toml, signatures.toml and xid.toml.

    python bench/bench_matrix_load.py [--runs N]

Prints a markdown table (median and min CPU seconds of N runs after one warm-up) for
bench/README.md. CPU time, not wall time: the build machine is shared.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from gpudoctor.matrix.load import parse_matrix
from gpudoctor.matrix.signatures import parse_signatures
from gpudoctor.matrix.xid import parse_xid_catalogue
from gpudoctor.resources import matrices_dir


def cpu_seconds(run: Callable[[], object], runs: int) -> list[float]:
    run()  # warm-up: imports, regex compilation
    out = []
    for _ in range(runs):
        start = time.process_time()
        run()
        out.append(time.process_time() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    args = parser.parse_args()
    folder = matrices_dir()
    readers: dict[str, Callable[[str, Path], object]] = {
        "compat.toml": parse_matrix,
        "signatures.toml": parse_signatures,
        "xid.toml": parse_xid_catalogue,
    }
    print(f"runs: {args.runs}\n")
    print("| file | median CPU s | min CPU s |")
    print("| --- | --- | --- |")
    for name, read in readers.items():
        path = folder / name
        text = path.read_text(encoding="utf-8")
        times = cpu_seconds(lambda: read(text, path), args.runs)  # noqa: B023 - run at once
        print(f"| `{name}` | {statistics.median(times):.4f} | {min(times):.4f} |")


if __name__ == "__main__":
    main()
