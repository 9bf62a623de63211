"""Time an offline rebuild with nothing changed, with a multi-GB wheelhouse: the wheels served
on 127.0.0.1 to a host-network build (the default for a local daemon) against the wheels sent
as build context (what a daemon on another host gets, and what every build did before).

    python bench/bench_wheelhouse.py [--gb 2] [--runs 3]

Needs a Docker Engine on this host's Unix socket and the stand-in base image
(scripts/make-base-image.sh). The wheelhouse is the tests' fake torch 2.5.1+cu124 wheel padded
to --gb gigabytes by a sparse prefix (zip readers, pip's too, skip data before an archive), so
no disk holds the padding until a build reads it, plus torchvision. Each mode builds once
(cold, timed) and then --runs rebuilds with nothing changed (median, min, max). Budget: a
served rebuild under 10 s; the script exits 1 when its median is over. Images and the install
stages it made are removed at the end.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gpudoctor.builder.pipeline import BuildRequest, build_row  # noqa: E402
from gpudoctor.builder.spec import BuildOptions  # noqa: E402
from gpudoctor.compat.request import ResolveRequest  # noqa: E402
from gpudoctor.docker.engine import BuildEvent, DaemonInfo  # noqa: E402
from gpudoctor.docker.sdk_engine import DockerSdkEngine  # noqa: E402
from gpudoctor.findings import Finding  # noqa: E402
from gpudoctor.resources import templates_dir  # noqa: E402
from tests.support.builder import (  # noqa: E402
    STANDIN_BASE,
    TORCH_ONLY_ROW,
    make_fake_torch,
    make_wheel,
)

BUDGET_S = 10.0
TAG = "gpudoctor-bench/wheelhouse"


class Quiet:
    """A Progress that keeps nothing (the build's own output would swamp the tables)."""

    def phase(self, message: str) -> None: ...
    def build_event(self, event: BuildEvent) -> None: ...
    def sending(self, sent: int, total: int) -> None: ...
    def finding(self, finding: Finding) -> None: ...


class ContextEngine:
    """The real engine, seen as a daemon on another host: the wheels go into the context."""

    def __init__(self, engine: DockerSdkEngine) -> None:
        self._engine = engine

    def ping(self) -> DaemonInfo:
        return replace(self._engine.ping(), shares_host_network=False)

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)


def big_wheelhouse(folder: Path, gigabytes: float) -> Path:
    folder.mkdir()
    wheel = make_fake_torch(folder)
    data = wheel.read_bytes()
    with wheel.open("r+b") as out:
        out.truncate(0)
        out.truncate(int(gigabytes * 1e9))  # a hole: no block written
        out.seek(0, 2)
        out.write(data)
    make_wheel(folder, "torchvision", "0.20.1", {}, requires=("torch==2.5.1",))
    return folder


def build(engine: object, house: Path, tag: str) -> tuple[float, str, bool]:
    request = BuildRequest(
        ResolveRequest("pytorch"),
        BuildOptions(base_image=STANDIN_BASE, wheelhouse=house, tag=tag),
        verify=False,
    )
    started = time.perf_counter()
    report = build_row(TORCH_ONLY_ROW, request, engine, Quiet(), templates_dir())  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    stage = report.install_stage.id if report.install_stage else ""
    return wall, stage, report.outcome.all_cached


def run_mode(name: str, engine: object, house: Path, runs: int) -> Iterator[str]:
    tag = f"{TAG}:{name}"
    cold, stage, _ = build(engine, house, tag)
    rebuilds = [build(engine, house, tag) for _ in range(runs)]
    walls = [wall for wall, _, _ in rebuilds]
    cached = all(every for _, _, every in rebuilds)
    for image in (tag, stage):
        if image:
            subprocess.run(["docker", "image", "rm", "-f", image], capture_output=True, check=False)
    yield (
        f"| {name} | {cold:.1f} | {statistics.median(walls):.1f} | {min(walls):.1f} | "
        f"{max(walls):.1f} | {'yes' if cached else 'no'} |"
    )
    if name == "served" and statistics.median(walls) > BUDGET_S:
        raise SystemExit(f"served rebuild median {statistics.median(walls):.1f} s > {BUDGET_S} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    subprocess.run(["bash", str(REPO / "scripts" / "make-base-image.sh")], check=True)
    engine = DockerSdkEngine.connect()
    with tempfile.TemporaryDirectory(prefix="gpudoctor-bench-") as tmp:
        house = big_wheelhouse(Path(tmp) / "wheels", args.gb)
        size = sum(p.stat().st_size for p in house.iterdir()) / 1e9
        print(f"wheelhouse: {size:.2f} GB apparent (sparse), rebuilds with nothing changed")
        print("| wheels | cold build s | rebuild median s | min s | max s | every step cached |")
        print("| --- | --- | --- | --- | --- | --- |")
        for line in run_mode("served", engine, house, args.runs):
            print(line, flush=True)
        for line in run_mode("context", ContextEngine(engine), house, args.runs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
