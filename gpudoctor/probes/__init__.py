"""Probes: collect HostFacts from this host (or from a recorded tree under `root`).

`collect_facts` is the one place the real edges are wired: the filesystem root, the environment,
the command runner, the NVML module and the Docker client factory. Each probe runs in its own
thread (they wait on different things: files, commands, NVML, a socket), and a probe that raises
becomes a ProbeIssue so that the snapshot always completes.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from gpudoctor import __version__
from gpudoctor.children import DEEP_TIMEOUT_S
from gpudoctor.facts import (
    ContainerRuntimeFacts,
    CudaLibFacts,
    DeepFrameworkFacts,
    FrameworkFacts,
    HostFacts,
    KernelFacts,
    NvmlFacts,
    PlatformFacts,
    ProbeIssue,
    ProbeTiming,
)
from gpudoctor.facts_amd import AmdFacts
from gpudoctor.facts_multigpu import MultiGpuFacts
from gpudoctor.probes import redact as _redact
from gpudoctor.probes.amd import probe_amd
from gpudoctor.probes.cudalibs import probe_cuda_libs
from gpudoctor.probes.frameworks import probe_frameworks, probe_programs
from gpudoctor.probes.multigpu import probe_multigpu
from gpudoctor.probes.nvml import probe_nvml
from gpudoctor.probes.platform import probe_platform
from gpudoctor.probes.runner import Runner, run_command
from gpudoctor.probes.runtime import DockerFactory, docker_from_env, probe_runtime
from gpudoctor.probes.sysfs import probe_kernel

if TYPE_CHECKING:
    from gpudoctor.probes.dist_info import Dist

T = TypeVar("T")
ProbeResult = tuple[T, list[ProbeIssue]]
# A stuck probe (an NVML call that never returns) must not hold the snapshot hostage.
PROBE_DEADLINE_S = 20.0


def collect_facts(
    *,
    root: Path = Path("/"),
    env: Mapping[str, str] | None = None,
    runner: Runner = run_command,
    nvml: ModuleType | None = None,
    docker_factory: DockerFactory | None = None,
    distributions: Iterable[Dist] | None = None,
    site_paths: Sequence[str | Path] | None = None,
    redact: bool = True,
    include_docker: bool = True,
    include_nvml: bool = True,
    deep: bool = False,
    deep_timeout_s: float | None = None,
    python: str | None = None,
) -> HostFacts:
    """Run every probe and assemble the snapshot; never raises for what a host lacks.

    `nvml` is the NVML bindings module (None: the installed nvidia-ml-py); `docker_factory`
    gives a Docker client (None: the real daemon, found through DOCKER_HOST or its socket);
    `distributions` / `site_paths` say where installed frameworks are (None: sys.path).
    `deep` then imports each framework found, with `python` (None: this interpreter) in a
    subprocess bounded by `deep_timeout_s` (None: the probe's default), and runs one small
    kernel (probes/deep.py)."""
    env = os.environ if env is None else env
    factory = (docker_factory or docker_from_env(env)) if include_docker else None
    probes: dict[str, tuple[Callable[[], ProbeResult[Any]], Any]] = {
        "platform": (lambda: probe_platform(root, env, redact=redact), PlatformFacts()),
        "sysfs": (lambda: probe_kernel(root, redact=redact), KernelFacts()),
        # NVML reads UUIDs even when redacting, to map those in *_VISIBLE_DEVICES to indexes;
        # redacted() drops them before anything is recorded.
        "nvml": (lambda: _nvml(nvml, redact, include_nvml), NvmlFacts()),
        "runtime": (
            lambda: probe_runtime(root, env, runner, factory, redact=redact),
            ContainerRuntimeFacts(),
        ),
        "cudalibs": (lambda: probe_cuda_libs(root, env, runner), CudaLibFacts()),
        "frameworks": (lambda: probe_frameworks(distributions, site_paths), ()),
        "programs": (lambda: probe_programs(distributions, site_paths), ()),
        "multigpu": (lambda: probe_multigpu(root, env, redact=redact), MultiGpuFacts()),
        "amd": (lambda: probe_amd(root, env), AmdFacts()),
    }
    started = time.perf_counter()
    results, issues, timings = _run_all(probes)
    frameworks: tuple[FrameworkFacts, ...] = results["frameworks"]
    deep_facts: tuple[DeepFrameworkFacts, ...] = ()
    if deep:  # after the frameworks probe: it says what there is to import
        value, found, seconds = _timed(
            "deep",
            lambda: _deep(frameworks, python, env, site_paths, deep_timeout_s),
        )
        deep_facts = value or ()
        issues.extend(found)
        timings.append(ProbeTiming("deep", round(seconds, 4)))
    timings.append(ProbeTiming("total", round(time.perf_counter() - started, 4)))
    facts = HostFacts(
        tool_version=__version__,
        collected_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        redacted=redact,
        platform=results["platform"],
        kernel=results["sysfs"],
        nvml=results["nvml"],
        container_runtime=results["runtime"],
        cuda_libs=results["cudalibs"],
        frameworks=frameworks,
        programs=results["programs"],
        deep=deep_facts,
        multigpu=results["multigpu"],
        amd=results["amd"],
        issues=tuple(issues),
        timings=tuple(timings),
    )

    facts = _redact.valid_strings(facts)  # before any format: names that are not UTF-8
    return redacted(facts) if redact else facts


def redacted(facts: HostFacts) -> HostFacts:
    """The snapshot as shared: GPU UUIDs and serials dropped (those in *_VISIBLE_DEVICES
    mapped to indexes first), and every string cleaned (probes/redact.py)."""
    indexes: dict[str, str] = {}
    gpus = []
    for gpu in facts.nvml.gpus:
        if gpu.uuid:
            indexes[gpu.uuid] = str(gpu.index)
        migs = []
        for mig in gpu.mig_devices:
            if mig.uuid:
                indexes[mig.uuid] = f"{gpu.index}:{mig.index}"
            migs.append(dataclasses.replace(mig, uuid=None))
        gpus.append(dataclasses.replace(gpu, uuid=None, serial=None, mig_devices=tuple(migs)))
    platform = dataclasses.replace(
        facts.platform,
        nvidia_visible_devices=_redact.visible_devices(
            facts.platform.nvidia_visible_devices, indexes
        ),
        cuda_visible_devices=_redact.visible_devices(facts.platform.cuda_visible_devices, indexes),
    )
    nvml = dataclasses.replace(facts.nvml, gpus=tuple(gpus))
    return _redact.every_string(dataclasses.replace(facts, nvml=nvml, platform=platform))


def _run_all(
    probes: dict[str, tuple[Callable[[], ProbeResult[Any]], Any]],
) -> tuple[dict[str, Any], list[ProbeIssue], list[ProbeTiming]]:
    """Run every probe in its own daemon thread, all within one deadline.

    Daemon threads, not a ThreadPoolExecutor: the executor's workers are joined at interpreter
    exit, so one probe stuck in a read (a FIFO or a hung NFS mount under the root) kept the
    process alive after it had printed its report. A stuck daemon thread dies with the process."""
    results: dict[str, Any] = {}
    issues: list[ProbeIssue] = []
    timings: list[ProbeTiming] = []
    done: dict[str, tuple[Any, list[ProbeIssue], float]] = {}
    threads = {
        name: threading.Thread(
            target=lambda name=name, fn=fn: done.__setitem__(name, _timed(name, fn)),
            name=f"gpudoctor-probe-{name}",
            daemon=True,
        )
        for name, (fn, _) in probes.items()
    }
    for thread in threads.values():
        thread.start()
    deadline = time.monotonic() + PROBE_DEADLINE_S
    for name, thread in threads.items():
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
        if name in done:
            value, found, seconds = done[name]
            timings.append(ProbeTiming(name, round(seconds, 4)))
        else:
            reason = f"did not finish within {PROBE_DEADLINE_S:.0f} s"
            value, found = None, [_issue(name, "probe-timeout", reason)]
        results[name] = probes[name][1] if value is None else value
        issues.extend(found)
    return results, issues, timings


def _timed(name: str, fn: Callable[[], ProbeResult[Any]]) -> tuple[Any, list[ProbeIssue], float]:
    started = time.perf_counter()
    try:
        value, issues = fn()
    except Exception as exc:  # a probe bug or an unforeseen host must not abort the snapshot
        value, issues = None, [_issue(name, "probe-crashed", f"{type(exc).__name__}: {exc}")]
    return value, list(issues), time.perf_counter() - started


def _issue(probe: str, code: str, reason: str) -> ProbeIssue:
    return ProbeIssue(probe=probe, field="*", code=code, reason=reason[:300])


def _deep(
    frameworks: tuple[FrameworkFacts, ...],
    python: str | None,
    env: Mapping[str, str],
    site_paths: Sequence[str | Path] | None,
    timeout_s: float | None,
) -> ProbeResult[tuple[DeepFrameworkFacts, ...]]:
    from gpudoctor.probes.deep import probe_deep  # lazy: --deep only

    child_env = dict(env)
    if site_paths is not None:  # frameworks were looked for there: the child must import them
        paths = [str(p) for p in site_paths]
        child_env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    found, issues = probe_deep(
        frameworks,
        python=python or sys.executable,
        env=child_env,
        timeout_s=DEEP_TIMEOUT_S if timeout_s is None else timeout_s,
    )
    return found, list(issues)


def _nvml(module: ModuleType | None, redact: bool, enabled: bool) -> ProbeResult[NvmlFacts]:
    if not enabled:
        return NvmlFacts(status="not_run"), []

    facts, issues = probe_nvml(module, redact=redact, read_uuids=True)
    return facts, list(issues)
