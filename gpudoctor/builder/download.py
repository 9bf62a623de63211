"""`build --download-wheels DIR`: fill a wheelhouse with the wheels one image installs, through
pip, where the index is reachable; then `build --wheelhouse DIR` builds it offline.

pip resolves the row's pinned requirements from the row's index for the image, not for this
machine: `--only-binary=:all:` with `--python-version`, `--implementation cp` and the platform
tags the image's distribution runs (its glibc's manylinux tags, and `linux_ARCH`, which
PyTorch's own index uses). Dependencies are resolved too: the offline install needs every
wheel the pins reach, and the folder is checked for them afterwards as the build will. `--pip`
extras come from PyPI, constrained by the pins, like the image's own extra step.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.builder.spec import ImageSpec
from gpudoctor.builder.wheelhouse import require_wheels
from gpudoctor.errors import EnvironmentUnavailable, UsageError

PYPI = "https://pypi.org/simple"
# glibc minor version of each distribution a matrix row builds on (its libc6 package:
# Ubuntu 20.04 2.31, 22.04 2.35, 24.04 2.39); manylinux_2_N wheels run where glibc >= 2.N.
_GLIBC = {"ubuntu20.04": 31, "ubuntu22.04": 35, "ubuntu24.04": 39}
_MANYLINUX_FLOOR = 5  # manylinux1 (glibc 2.5): NVIDIA's nvtx wheels still carry it
_MACHINES = {"linux/amd64": "x86_64", "linux/arm64": "aarch64"}


@dataclass(frozen=True)
class Download:
    commands: tuple[tuple[str, ...], ...]
    constraints: str  # the pins extras are constrained by (a file the second command reads)


def platform_tags(spec: ImageSpec) -> list[str]:
    """The wheel platform tags the image accepts, newest glibc first."""
    machine = _MACHINES.get(spec.platform, "x86_64")
    newest = _GLIBC.get(spec.row.distro, 17)  # unknown: manylinux2014's glibc 2.17
    tags = [f"manylinux_2_{n}_{machine}" for n in range(newest, _MANYLINUX_FLOOR - 1, -1)]
    legacy = [f"manylinux{name}_{machine}" for name in ("2014", "2010", "1")]
    return [*tags, *legacy, f"linux_{machine}"]


def plan(spec: ImageSpec, dest: Path, python: str = sys.executable) -> Download:
    target = ["--only-binary=:all:", "--python-version", spec.python, "--implementation", "cp"]
    for tag in platform_tags(spec):
        target += ["--platform", tag]
    pip = (python, "-m", "pip", "download", "--dest", str(dest), "--progress-bar", "off")
    commands = [(*pip, *target, "--index-url", spec.index_url or PYPI, *spec.requirements)]
    constraints = dest / ".gpudoctor-constraints.txt"
    if spec.extra_requirements:
        commands.append(
            (
                *pip,
                *target,
                "--index-url",
                PYPI,
                "--find-links",
                str(dest),
                "-c",
                str(constraints),
                *spec.extra_requirements,
            )
        )
    return Download(tuple(commands), str(constraints))


def download_wheels(spec: ImageSpec, dest: Path, say: Callable[[str], None]) -> tuple[Path, ...]:
    """Run pip download for the image; returns the wheels the build will install.

    Raises:
        UsageError: `dest` exists and is not a folder.
        EnvironmentUnavailable: pip is missing or failed (the index unreachable, a wheel not
            published for the image's Python or platform); pip's own output says which.
    """
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"--download-wheels {dest}: not a folder", hint="name a folder")
    dest.mkdir(parents=True, exist_ok=True)
    download = plan(spec, dest)
    constraints = Path(download.constraints)
    try:
        if spec.extra_requirements:
            constraints.write_text("".join(f"{r}\n" for r in spec.requirements))
        for command in download.commands:
            say(f"running {' '.join(command)}")
            _run(command, spec)
    finally:
        constraints.unlink(missing_ok=True)
    wanted = (*spec.requirements, *spec.extra_requirements)
    return require_wheels(dest, wanted, spec.python).files


def _run(command: Sequence[str], spec: ImageSpec) -> None:
    try:
        # pip's progress goes to stderr with ours; its stdout too (stdout is the report's).
        # A stderr that is no file (captured) gets pip's output when it ends.
        live = _has_fileno(sys.stderr)
        done = subprocess.run(
            command,
            stdout=sys.stderr if live else subprocess.PIPE,
            stderr=None if live else subprocess.STDOUT,
            text=True,
            check=False,
        )
        if not live:
            sys.stderr.write(done.stdout or "")
    except OSError as exc:
        raise EnvironmentUnavailable(
            f"cannot run pip: {exc.strerror or exc}",
            hint="run the command above with a Python that has pip",
        ) from None
    if done.returncode == 0:
        return
    index = command[command.index("--index-url") + 1]
    if _no_pip(command[0]):
        raise EnvironmentUnavailable(
            f"{command[0]} has no pip module",
            hint="install pip for it (`python3 -m ensurepip --user`, or your distribution's "
            "python3-pip), or run the command above where pip is",
        )
    raise EnvironmentUnavailable(
        f"pip download failed (exit {done.returncode}) for {spec.row.id}: its output above "
        f"says why",
        hint=f"where {index} is unreachable, run this where it is reachable, or give "
        f"--index-url URL of a mirror; a wheel missing for Python {spec.python} on "
        f"{spec.platform} means the row cannot be built for it",
    )


def _has_fileno(stream: object) -> bool:
    try:
        stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _no_pip(python: str) -> bool:
    probe = subprocess.run(
        [python, "-c", "import pip"], capture_output=True, check=False, timeout=30
    )
    return probe.returncode != 0
