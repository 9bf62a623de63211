"""Time `gpudoctor check`: on this host, per recorded snapshot (`--from`), and against
`python -m torch.utils.collect_env` in an environment with torch installed.

    python bench/bench_check.py [--runs N] [--python PATH]

`--python` names the interpreter of an environment with torch and gpudoctor installed (see
bench/README.md, "Check"); without it the torch comparison is skipped. Prints markdown tables
(median, min, max of N runs, seconds) for bench/README.md.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOSTS = ROOT / "tests" / "data" / "hosts"
BUDGET_RATIO = 10.0


CPU: dict[str, list[float]] = {}  # argv -> CPU seconds (user + sys) of each run


def time_command(argv: list[str], runs: int) -> list[float]:
    """Wall time of `argv` as a fresh process; exit 0 and 1 are both normal for check. Its CPU
    time (user + sys, from the children's rusage) goes to CPU: on a shared machine that is the
    steadier figure, since waiting for a core counts in wall time only."""
    walls = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        CPU.setdefault(" ".join(argv), []).append(cpu)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return walls


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def in_process_per_snapshot(runs: int) -> list[str]:
    """run_checks + text report per fixture, in-process (the judging cost without start-up)."""
    from gpudoctor.checks import run_checks
    from gpudoctor.facts_json import load
    from gpudoctor.matrix.load import load_matrix
    from gpudoctor.report.text import render_text

    matrix = load_matrix()
    lines = []
    for path in sorted(HOSTS.glob("*.json")):
        facts = load(path)
        walls = []
        for _ in range(runs):
            started = time.perf_counter()
            render_text(run_checks(facts, matrix))
            walls.append(time.perf_counter() - started)
        lines.append(row(f"{path.stem} (in-process)", walls))
    return lines


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
    parser.add_argument("--python", help="interpreter of a venv with torch and gpudoctor")
    args = parser.parse_args()
    me = [sys.executable, "-m", "gpudoctor"]
    print(f"runs: {args.runs}\n")
    print("| what | median s | min s | max s |\n| --- | --- | --- | --- |")
    print(row("`gpudoctor check` (this host)", time_command([*me, "check"], args.runs)))
    print(
        row(
            "`gpudoctor check --format json`",
            time_command([*me, "check", "--format", "json"], args.runs),
        )
    )
    for name in ("h100-8x-healthy", "b200-torch25-no-sm100", "no-gpu-toolkit-only"):
        snap = str(HOSTS / f"{name}.json")
        print(
            row(
                f"`check --from {name}.json`",
                time_command([*me, "check", "--from", snap], args.runs),
            )
        )
    print("\n| snapshot | median s | min s | max s |\n| --- | --- | --- | --- |")
    print("\n".join(in_process_per_snapshot(args.runs)))
    if args.python:
        check = time_command([args.python, "-m", "gpudoctor", "check"], args.runs)
        collect = time_command(
            [args.python, "-m", "torch.utils.collect_env"], max(3, args.runs // 4)
        )
        print("\n| with torch installed | median s | min s | max s |\n| --- | --- | --- | --- |")
        print(row("`gpudoctor check`", check))
        print(row("`python -m torch.utils.collect_env`", collect))
        check_cpu = CPU[" ".join([args.python, "-m", "gpudoctor", "check"])]
        collect_cpu = CPU[" ".join([args.python, "-m", "torch.utils.collect_env"])]
        print(row("`gpudoctor check`, CPU s (user + sys)", check_cpu))
        print(row("`python -m torch.utils.collect_env`, CPU s (user + sys)", collect_cpu))
        ratio = statistics.median(collect) / statistics.median(check)
        cpu_ratio = statistics.median(collect_cpu) / statistics.median(check_cpu)
        print(f"\ncollect_env / check (medians): {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU")
        if min(ratio, cpu_ratio) < BUDGET_RATIO:  # the budget: at most 0.1x collect_env
            print(f"over budget: check must take at most 1/{BUDGET_RATIO:g} of collect_env")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
