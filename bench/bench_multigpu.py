"""Time the default `gpudoctor check` on an 8-GPU NVSwitch host: the stand-in NVML
(tests/nvml/fake_nvml.c) answering as an HGX H100 with 18 NVLinks per GPU, fabric state and
28 GPU pairs (tests/nvml/scenarios/hgx_h100_nvswitch.txt), through the real nvidia-ml-py.

    python bench/bench_multigpu.py [--runs N]

Prints markdown tables for bench/README.md: the command's wall time with the 8-GPU stand-in and
with no NVML library at all (the same machine's floor), and the NVML probe's own time with the
NVML calls it made. Exits 1 when the median is over the budget (0.3 s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "nvml"))
BUDGET_S = 0.3
SCENARIO = ROOT / "tests" / "nvml" / "scenarios" / "hgx_h100_nvswitch.txt"


def run(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - started)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return walls


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


PROBE_LOOP = """
import statistics, sys, time
from gpudoctor.probes.nvml import probe_nvml
walls = []
for _ in range(int(sys.argv[1])):
    started = time.perf_counter()
    facts, issues = probe_nvml(timeout_s=30)
    walls.append(time.perf_counter() - started)
    assert facts.status == "ok" and not issues, (facts.status, issues)
print(statistics.median(walls), min(walls), max(walls))
"""


def main() -> int:
    from nvml_rig import build

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpudoctor-bench-"))
    lib = build("current", work)
    trace = work / "trace.txt"
    base = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
    fake = base | {"LD_LIBRARY_PATH": str(lib), "FAKE_NVML_SCENARIO": str(SCENARIO)}
    none = base | {"LD_LIBRARY_PATH": str(work / "empty")}
    check = [sys.executable, "-m", "gpudoctor", "check"]
    run(check, fake, 1)  # warm-up: page cache, .pyc
    with_gpus = run(check, fake, args.runs)
    without = run(check, none, args.runs)
    snap = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "snapshot", "--no-docker"],
        env=fake | {"FAKE_NVML_TRACE": str(trace)},
        capture_output=True,
        text=True,
        check=True,
    )
    facts = json.loads(snap.stdout)
    timings = {t["probe"]: t["seconds"] for t in facts["timings"]}
    calls = trace.read_text().split()
    loop = subprocess.run(
        [sys.executable, "-c", PROBE_LOOP, str(args.runs * 3)],
        env=fake,
        capture_output=True,
        text=True,
        check=True,
    )
    median, low, high = (float(x) for x in loop.stdout.split())
    print("| command | median s | min s | max s |")
    print("| --- | --- | --- | --- |")
    print(row("`gpudoctor check`, 8-GPU HGX stand-in", with_gpus))
    print(row("`gpudoctor check`, no NVML library", without))
    print(
        f"| NVML probe in-process, {args.runs * 3} runs | {median:.3f} | {low:.3f} | {high:.3f} |"
    )
    print()
    print(f"NVML probe: {timings.get('nvml', 0):.4f} s for {len(calls)} NVML calls "
          f"({facts['nvml']['device_count']} GPUs, {len(facts['nvml']['pairs'])} pairs); "
          f"multigpu probe: {timings.get('multigpu', 0):.4f} s; "
          f"all probes: {timings.get('total', 0):.4f} s")  # fmt: skip
    return 1 if statistics.median(with_gpus) > BUDGET_S else 0


if __name__ == "__main__":
    raise SystemExit(main())
