"""NVML probe test rig: a stand-in libnvidia-ml.so.1 and a runner that probes one scenario.

The stand-in is compiled from fake_nvml.c with gcc once per source version (cached by hash in
the system temp directory) in two builds: "current" (a 550 driver) and "old" (an R470 driver
that lacks newer symbols). Each scenario runs `python -m gpudoctor.probes.nvml` in a fresh
process with LD_LIBRARY_PATH at the build, so the real nvidia-ml-py binding loads it and no
Python code is patched. Scenario files live in scenarios/ (format: the header of fake_nvml.c).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.facts import NvmlFacts, ProbeIssue
from gpudoctor.facts_json import from_dict

HERE = Path(__file__).resolve().parents[1] / "nvml"  # the C stand-in and its scenarios
SOURCE = HERE / "fake_nvml.c"
SCENARIOS = HERE / "scenarios"
# variant -> (driver version in the library's file name, extra gcc flags)
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "current": ("550.90.07", ()),
    "old": ("470.256.02", ("-DFAKE_NVML_OLD_DRIVER",)),
}


@dataclass(frozen=True)
class ProbeRun:
    facts: NvmlFacts
    issues: list[ProbeIssue]
    calls: list[str]  # NVML entry points called, in order (from FAKE_NVML_TRACE)
    seconds: float  # wall time of the whole subprocess

    def issue_codes(self) -> list[tuple[str, str]]:
        return [(i.field, i.code) for i in self.issues]


def build(variant: str, work: Path) -> Path:
    """Directory holding libnvidia-ml.so.<version> and its libnvidia-ml.so.1 link."""
    version, flags = VARIANTS[variant]
    digest = hashlib.sha256(SOURCE.read_bytes() + repr(flags).encode()).hexdigest()[:16]
    final = Path(tempfile.gettempdir()) / f"gpudoctor-fake-nvml-{digest}" / variant
    if (final / "libnvidia-ml.so.1").exists():
        return final
    staging = work / f"build-{variant}"
    staging.mkdir()
    real = staging / f"libnvidia-ml.so.{version}"
    cmd = ["gcc", "-shared", "-fPIC", "-O1", "-Wall", "-fvisibility=hidden", *flags]
    subprocess.run([*cmd, "-o", str(real), str(SOURCE)], check=True, capture_output=True)
    (staging / "libnvidia-ml.so.1").symlink_to(real.name)  # as the driver installs it
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging.rename(final)  # atomic; a parallel run may have won the race
    except OSError:
        if not (final / "libnvidia-ml.so.1").exists():
            raise
    return final


class FakeNvml:
    def __init__(self, libs: dict[str, Path], work: Path) -> None:
        self.libs = libs
        self.work = work
        self._runs = 0

    def run(
        self,
        scenario: str | Path,
        *,
        extra: str = "",
        variant: str = "current",
        redact: bool = True,
        timeout: float = 5.0,
        lib_dir: Path | None = None,
    ) -> ProbeRun:
        """Probe a scenario: a name in scenarios/ or a Path, plus `extra` lines (last wins)."""
        self._runs += 1
        base = SCENARIOS / f"{scenario}.txt" if isinstance(scenario, str) else scenario
        path = self.work / f"scenario-{self._runs}.txt"
        path.write_text(base.read_text(encoding="utf-8") + "\n" + extra + "\n", encoding="utf-8")
        trace = self.work / f"trace-{self._runs}.txt"
        env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
        env.update(
            LD_LIBRARY_PATH=str(lib_dir or self.libs[variant]),
            FAKE_NVML_SCENARIO=str(path),
            FAKE_NVML_TRACE=str(trace),
        )
        cmd = [sys.executable, "-m", "gpudoctor.probes.nvml", "--timeout", str(timeout)]
        if not redact:
            cmd.append("--no-redact")
        start = time.monotonic()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)
        seconds = time.monotonic() - start
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        return ProbeRun(
            facts=from_dict(NvmlFacts, data["nvml"]),
            issues=[from_dict(ProbeIssue, i) for i in data["issues"]],
            calls=trace.read_text().split() if trace.exists() else [],
            seconds=seconds,
        )
