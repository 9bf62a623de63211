"""Time one gpudoctor command from two source trees, run alternately: before/after figures that
hold on a busy shared machine, where a slow minute would otherwise land on one side only.

    git archive OLD_COMMIT | tar -x -C /tmp/before
    python bench/bench_ab.py --before /tmp/before [--runs N] [--python PATH] -- check --from X

Each round runs `PYTHON -m gpudoctor ARGS` once with PYTHONPATH at the other tree and once at
this one (the first round warms caches and is not counted). Prints the median wall and CPU
(user + sys) seconds of each side; exit 0 and 1 both count as a normal run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env(tree: Path) -> dict[str, str]:
    # PYTHONSAFEPATH (Python 3.11+): `-m` would otherwise put the working directory, often this
    # checkout, before PYTHONPATH, and both sides would run this tree
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}


def check_tree(python: str, tree: Path) -> None:
    """Stop unless `python` with this tree's environment imports gpudoctor from the tree."""
    code = "import gpudoctor; print(gpudoctor.__file__)"
    done = subprocess.run(
        [python, "-c", code], env=_env(tree), capture_output=True, text=True, check=False
    )
    imported = Path(done.stdout.strip() or ".").resolve()
    if tree not in imported.parents:
        raise SystemExit(f"{python} imports gpudoctor from {imported}, not from {tree}")


def one_run(python: str, tree: Path, args: list[str]) -> tuple[float, float]:
    env = _env(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "gpudoctor", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tree}: exit {done.returncode}: {done.stderr[-500:]!r}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the older source tree")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("args", nargs="*", help="gpudoctor's arguments (after --)")
    options = parser.parse_args()
    trees = {"before": options.before.resolve(), "after": ROOT}
    for tree in trees.values():  # measure gpudoctor, not the byte compiler
        check_tree(options.python, tree)
        subprocess.run(
            [options.python, "-m", "compileall", "-q", str(tree / "gpudoctor")], check=True
        )
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for index in range(options.runs + 1):
        for name, tree in trees.items():
            measured = one_run(options.python, tree, options.args)
            if index:
                times[name].append(measured)
    command = " ".join(["gpudoctor", *options.args])
    print(f"`{command}`, {options.runs} alternate runs (median wall s / median CPU s)")
    for name, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs)
        cpu = statistics.median(c for _, c in pairs)
        print(f"| {name} | {wall:.3f} / {cpu:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
