"""The doctor-style text report (flutter doctor's shape): one line per area with a mark, the
problems indented under it with their fix, one summary line. Quiet on the happy path: passing
checks fold into their area line; `-v` shows every finding with its evidence."""

from __future__ import annotations

import os
import textwrap
from typing import IO, TYPE_CHECKING

from gpudoctor.areas import GPU_AREAS
from gpudoctor.areas import title as area_title
from gpudoctor.exitcodes import ExitCode
from gpudoctor.findings import MARKS, Finding, Severity
from gpudoctor.wording import plural

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun

_COLOURS = {
    MARKS[Severity.ERROR]: "31",
    MARKS[Severity.WARN]: "33",
    MARKS[Severity.UNKNOWN]: "35",
    MARKS[Severity.OK]: "32",
    MARKS[Severity.NA]: "2",
    MARKS[Severity.INFO]: "36",
}


def use_colour(stream: IO[str], env: dict[str, str] | None = None) -> bool:
    """Colour only on a terminal; NO_COLOR (any value) wins, FORCE_COLOR forces it on."""
    env = dict(os.environ) if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _paint(mark: str, text: str, colour: bool) -> str:
    return f"\033[{_COLOURS[mark]}m{text}\033[0m" if colour else text


def _shown(f: Finding, verbose: bool) -> bool:
    if verbose:
        return True
    if f.severity in (Severity.ERROR, Severity.WARN, Severity.UNKNOWN):
        return True
    if f.area in ("intent", "requirements"):
        return True  # the answers the user asked for
    return f.severity is Severity.INFO and f.code in _LOUD_INFO


# Info findings worth a line without -v: they change what a framework sees or can do here
# (the rest, e.g. "PCIe Gen1 at idle", is noise on the happy path).
_LOUD_INFO = frozenset(
    {
        "no-nvidia-gpu",
        "mig-mode",
        "report-read",
        "report-error",
        "framework-driver-cuda",
        "framework-arch",
        "gpu-virtualization",
        "wsl",
        "iommu",
        "container-gpus",
        "cuda-visible-devices",
        "nvcc-driver-cuda",
    }
)


def _finding_lines(f: Finding, verbose: bool, colour: bool) -> list[str]:
    mark = MARKS[f.severity]
    who = f"{f.subject}: " if f.subject else ""
    lines = [f"    {_paint(mark, mark, colour)} {who}{f.title} ({f.code})"]
    if f.detail and (verbose or f.severity is not Severity.OK):
        lines += [f"      {line}" for line in f.detail.splitlines()]  # a table keeps its rows
    if f.fix and f.severity not in (Severity.OK, Severity.NA):
        lines.append(f"      → {f.fix}")
    if verbose and f.evidence:
        lines.append("      evidence: " + ", ".join(f"{k}={v}" for k, v in f.evidence))
    return lines


def render_text(run: CheckRun, *, verbose: bool = False, colour: bool = False) -> str:
    out = [] if verbose else ["gpudoctor check (to see all details, run gpudoctor check -v):"]
    for area in run.areas():
        found = [f for f in run.findings if f.area == area]
        mark = MARKS[run.area_status(area)]
        headline = run.headlines.get(area, "")
        title = area_title(area) + (f": {headline}" if headline else "")
        out.append(f"[{_paint(mark, mark, colour)}] {title}")
        for f in found:
            if _shown(f, verbose):
                out += _finding_lines(f, verbose, colour)
    if any(f.code == "no-nvidia-gpu" for f in run.findings) and not verbose:
        out += _skipped_lines(run)
    out.append(summary_line(run, colour))
    return "\n".join(out) + "\n"


def _skipped_lines(run: CheckRun) -> list[str]:
    """Which checks a host without a GPU skipped (the n/a ones of the GPU areas)."""
    codes = sorted(
        {f.code for f in run.findings if f.severity is Severity.NA and f.area in GPU_AREAS}
    )
    amd = any(f.area == "amd" for f in run.findings)
    gpu = "an NVIDIA GPU" if amd else "a GPU"
    text = f"skipped without {gpu} ({len(codes)} checks): {', '.join(codes)}"
    return textwrap.wrap(
        text, width=79, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False
    )


def summary_line(run: CheckRun, colour: bool = False) -> str:
    c = run.counts()
    parts = [
        plural(c["error"], "error") if c["error"] else "",
        plural(c["warn"], "warning") if c["warn"] else "",
        f"{c['unknown']} unknown" if c["unknown"] else "",
    ]
    problems = ", ".join(p for p in parts if p)
    if not problems:
        ok = MARKS[Severity.OK]
        return _paint(ok, f"{ok} No issues found.", colour) + f" (exit {run.exit_code})"
    worst = Severity.ERROR if c["error"] else Severity.WARN if c["warn"] else Severity.UNKNOWN
    mark = MARKS[worst]
    verdict = "failed" if run.exit_code else "passed"
    if run.exit_code == ExitCode.INTERNAL:
        verdict = "did not finish: gpudoctor itself failed"
    return _paint(mark, f"{mark} {problems}", colour) + f"; check {verdict} (exit {run.exit_code})"
