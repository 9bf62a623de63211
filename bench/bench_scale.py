"""Time `gpudoctor check --from` on inputs far larger than any real host or fleet: a snapshot
with many GPUs, and a folder of many host snapshots (each a copy of a recorded 8-GPU host with
its own hostname).

    python bench/bench_scale.py [--gpus 10000] [--hosts 3000] [--runs 3]

Prints a markdown table (median, min, max of N runs, seconds) for bench/README.md. The inputs
are written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "tests" / "data" / "hosts" / "h100-8x-healthy.json"


def many_gpus(base: dict[str, object], count: int) -> dict[str, object]:
    data = json.loads(json.dumps(base))
    nvml = data["nvml"]
    assert isinstance(nvml, dict)
    template = nvml["gpus"][0]
    nvml["gpus"] = [{**template, "index": i, "minor_number": i} for i in range(count)]
    nvml["device_count"] = count
    return data


def time_command(argv: list[str], runs: int) -> list[float]:
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        walls.append(time.perf_counter() - started)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return walls


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=10_000)
    parser.add_argument("--hosts", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    base = json.loads(HOST.read_text(encoding="utf-8"))
    gpudoctor = [sys.executable, "-m", "gpudoctor"]
    lines = ["| what | median s | min s | max s |", "| --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "many-gpus.json"
        big.write_text(json.dumps(many_gpus(base, args.gpus)), encoding="utf-8")
        size = big.stat().st_size >> 20
        walls = time_command([*gpudoctor, "check", "--from", str(big)], args.runs)
        lines.append(row(f"`check --from` one snapshot of {args.gpus} GPUs ({size} MiB)", walls))
        fleet = Path(tmp) / "fleet"
        fleet.mkdir()
        for i in range(args.hosts):
            base["platform"]["hostname"] = f"node{i:05d}"
            (fleet / f"node{i:05d}.json").write_text(json.dumps(base), encoding="utf-8")
        walls = time_command([*gpudoctor, "check", "--from", str(fleet)], args.runs)
        lines.append(row(f"`check --from DIR` of {args.hosts} 8-GPU hosts", walls))
        walls = time_command(
            [*gpudoctor, "check", "--from", str(fleet), "--format", "json"], args.runs
        )
        lines.append(row(f"`check --from DIR --format json` of {args.hosts} hosts", walls))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
