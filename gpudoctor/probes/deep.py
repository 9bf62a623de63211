"""`--deep`: import each installed framework in a subprocess, ask it for CUDA, run one kernel.

The default run never imports a framework (seconds of start-up, and it creates a CUDA
context); `--deep` does, in a child process running templates/verify_image.py (the script
`gpudoctor build` runs inside images) with the interpreter gpudoctor runs under, one framework
at a time, each bounded by a timeout. Whatever the child does (hang, segfault, an import that
raises, no report) becomes a DeepFrameworkFacts with its outcome plus a ProbeIssue; this
module never raises for what the host does.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpudoctor import children, framework_names, verify_report
from gpudoctor.facts import DeepDevice, DeepFrameworkFacts, FrameworkFacts, ProbeIssue
from gpudoctor.resources import templates_dir
from gpudoctor.wording import exit_text, last_line

PROBE = "deep"
# The child's environment on top of the host's: faulthandler prints the Python stack of a
# segfault (so a crash says where it happened); TensorFlow and JAX would otherwise grab most of
# the GPU memory for a 4 KiB test on what may be a busy node; TF's C++ logging stays quiet.
CHILD_ENV = {
    "PYTHONFAULTHANDLER": "1",
    "TF_FORCE_GPU_ALLOW_GROWTH": "true",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
}
_ERROR_LINES = 20


@dataclass(frozen=True)
class ChildResult:
    """What the child did: `rc` None when it timed out or could not start (`start_error`)."""

    rc: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    start_error: str | None = None
    truncated: bool = False  # printed more than children.MAX_OUTPUT: killed there


def verify_script() -> Path:
    return templates_dir() / "verify_image.py"


def probe_deep(
    frameworks: Iterable[FrameworkFacts],
    *,
    python: str,
    env: Mapping[str, str],
    timeout_s: float = children.DEEP_TIMEOUT_S,
    script: Path | None = None,
) -> tuple[tuple[DeepFrameworkFacts, ...], list[ProbeIssue]]:
    """One DeepFrameworkFacts per framework, probed one after another (two frameworks at once
    would compete for GPU memory and make each other's kernel fail)."""
    script = script or verify_script()
    found: list[DeepFrameworkFacts] = []
    issues: list[ProbeIssue] = []
    for fw in frameworks:
        if fw.name not in framework_names.SCRIPT_NAME:
            continue
        argv = [python, str(script), framework_names.SCRIPT_NAME[fw.name], "--kernel"]
        child = run_child(argv, {**env, **CHILD_ENV}, timeout_s)
        facts = interpret(fw.name, child, python=python, timeout_s=timeout_s)
        found.append(facts)
        issue = issue_for(facts)
        if issue is not None:
            issues.append(issue)
    return tuple(found), issues


def run_child(argv: Sequence[str], env: Mapping[str, str], timeout_s: float) -> ChildResult:
    """Run `argv` in its own session (gpudoctor/children.py) so that a timeout, too much
    output or an interrupt kills it and anything it spawned (a grandchild holding the pipes
    open would otherwise keep us waiting past the timeout)."""
    started = time.perf_counter()
    try:
        child = children.start(argv, env)
    except OSError as exc:
        return ChildResult(None, "", "", 0.0, start_error=f"{argv[0]}: {exc.strerror or exc}")
    done = children.capture(child, timeout_s)
    return ChildResult(
        done.returncode,
        _text(done.stdout),
        _text(done.stderr),
        time.perf_counter() - started,
        timed_out=done.timed_out,
        truncated=done.truncated,
    )


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def interpret(
    name: str, child: ChildResult, *, python: str, timeout_s: float
) -> DeepFrameworkFacts:
    """The child's outcome and report as facts."""
    base = DeepFrameworkFacts(
        name=name,
        python=python,
        seconds=round(child.seconds, 3),
        timeout_s=timeout_s,
        exit_code=child.rc,
    )
    if child.start_error is not None:
        return _replace(base, outcome="crashed", error=child.start_error)
    if child.timed_out:
        return _replace(base, outcome="timeout", error=_excerpt(child.stderr))
    if child.truncated:  # no report anyone could read: it is stopped, as a crash
        limit = children.MAX_OUTPUT >> 20
        return _replace(base, outcome="crashed", error=f"printed more than {limit} MiB; stopped")
    report = verify_report.read(child.stdout).data
    if report is None:
        outcome = "no_report" if child.rc == 0 else "crashed"
        return _replace(base, outcome=outcome, error=_excerpt(child.stderr or child.stdout))
    return from_report(base, report)


def from_report(base: DeepFrameworkFacts, report: Mapping[str, Any]) -> DeepFrameworkFacts:
    """The facts in verify_image.py's report; unexpected types read as unknown, not a crash."""
    imported = report.get("imported") == framework_names.SCRIPT_NAME.get(base.name)
    errors = [e for e in verify_report.texts(report.get("errors")) if e]
    if not imported:
        error = _str(report.get("import_error")) or "; ".join(errors) or "the import failed"
        return _replace(base, outcome="import_failed", import_ok=False, error=_excerpt(error))
    return _replace(
        base,
        outcome="probe_failed" if errors else "ok",
        import_ok=True,
        import_seconds=_float(report.get("import_seconds")),
        version=_str(report.get("framework_version")),
        cuda=_str(report.get("built_cuda")),
        cudnn=_str(report.get("built_cudnn")),
        cuda_available=_bool(report.get("cuda_available")),
        device_count=_int(report.get("device_count")),
        devices=_devices(report.get("devices")),
        arch_list=_strs(report.get("arch_list")),
        cuda_warnings=_strs(report.get("cuda_warnings")),
        kernel_ok=_bool(report.get("kernel_ok")),
        kernel_error=_str(report.get("kernel_error")),
        error=_excerpt("\n".join(errors)) if errors else None,
    )


def issue_for(facts: DeepFrameworkFacts) -> ProbeIssue | None:
    """A ProbeIssue for every outcome that left facts unread."""
    code = {
        "import_failed": "deep-import-failed",
        "probe_failed": "deep-probe-failed",
        "timeout": "deep-timeout",
        "crashed": "deep-crashed",
        "no_report": "deep-no-report",
    }.get(facts.outcome)
    if code is None:
        return None
    return ProbeIssue(PROBE, f"deep.{facts.name}", code, describe(facts)[:300])


def describe(facts: DeepFrameworkFacts) -> str:
    """One line: what happened to the child, with the error's last line."""
    last = last_line(facts.error)
    if facts.outcome == "timeout":
        head = f"importing {facts.name} did not finish within {facts.timeout_s:g} s"
    elif facts.outcome == "crashed":
        head = f"the {facts.name} probe {exit_text(facts.exit_code)}"
    elif facts.outcome == "no_report":
        head = f"the {facts.name} probe exited 0 without its report line"
    elif facts.outcome == "import_failed":
        head = f"import {facts.name} failed"
    else:
        head = f"the {facts.name} probe failed after the import"
    return f"{head}: {last}" if last else head


def _excerpt(text: str) -> str | None:
    """At most _ERROR_LINES lines: the head says where it began, the tail what it was."""
    lines = text.strip().splitlines()
    if not lines:
        return None
    if len(lines) > _ERROR_LINES:
        lines = [*lines[:5], "...", *lines[-(_ERROR_LINES - 6) :]]
    return "\n".join(line[:500] for line in lines)


def _replace(base: DeepFrameworkFacts, **changes: Any) -> DeepFrameworkFacts:
    return replace(base, **changes)


# The report comes from a child that may run anything: every field through the protocol's
# typed accessors (a value of the wrong shape is "not reported").
_str = verify_report.text
_float = verify_report.number
_int = verify_report.integer
_bool = verify_report.flag
_strs = verify_report.texts


def _devices(value: Any) -> tuple[DeepDevice, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(_device(i, d) for i, d in enumerate(value) if isinstance(d, dict))


def _device(position: int, entry: Mapping[str, Any]) -> DeepDevice:
    index = _int(entry.get("index"))
    return DeepDevice(
        index=position if index is None else index,
        name=_str(entry.get("name")),
        compute_capability=_str(entry.get("capability")),
    )
