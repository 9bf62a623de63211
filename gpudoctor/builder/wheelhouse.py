"""Pick the files of a wheelhouse that an offline build needs.

Starting from the requirement names, follow each wheel's `Requires-Dist` (read from the wheel's
METADATA, no install) with markers evaluated for the image's Python on Linux, and keep every file
of every project reached. A needed project available only as an sdist has dependencies we cannot
read without building it, so then the whole wheelhouse goes into the context (and we say so).
"""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    NormalizedName,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

from gpudoctor.errors import UsageError


@dataclass(frozen=True)
class WheelSelection:
    files: tuple[Path, ...]  # sorted by name
    whole: bool  # True: every file of the wheelhouse, dependencies could not all be followed
    missing: tuple[str, ...]  # needed projects the wheelhouse does not have
    reason: str = ""


def _index(wheelhouse: Path) -> dict[NormalizedName, list[Path]]:
    projects: dict[NormalizedName, list[Path]] = {}
    root = wheelhouse.resolve()
    for path in sorted(wheelhouse.iterdir()):
        name = _project_name(path)
        if name is not None:
            _refuse_odd_entry(path, root)
            projects.setdefault(name, []).append(path)
    return projects


def _refuse_odd_entry(path: Path, root: Path) -> None:
    """A package file must be a regular file inside the wheelhouse: reading a FIFO named
    `x.whl` would block forever, a folder cannot be a wheel, and a symlink out of the folder
    would copy a file from elsewhere on this host into the image."""
    why = None
    target = path.resolve()
    if not target.is_relative_to(root):
        why = f"a symlink to {target}, outside the wheelhouse"
    elif not stat.S_ISREG(target.stat().st_mode):
        why = "a folder" if target.is_dir() else "not a regular file"
    if why is not None:
        raise UsageError(
            f"--wheelhouse {path.parent}: {path.name} is {why}",
            hint="put only wheel and sdist files (from `pip download`) into the wheelhouse",
        )


def _project_name(path: Path) -> NormalizedName | None:
    try:
        if path.name.endswith(".whl"):
            return parse_wheel_filename(path.name)[0]
        if path.name.endswith((".tar.gz", ".zip")):
            return parse_sdist_filename(path.name)[0]
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    return None


def wheel_requirements(wheel: Path) -> list[Requirement]:
    """The Requires-Dist entries of a wheel (unparseable ones are skipped: pip will say).

    Raises:
        UsageError: the file is not a wheel (not a zip archive).
    """
    try:
        return _requirements(wheel)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise UsageError(
            f"--wheelhouse {wheel.parent}: {wheel.name} is not a wheel ({exc})",
            hint="remove it, or download it again with `pip download`",
        ) from None


def _requirements(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        meta = next(
            (
                n
                for n in archive.namelist()
                if n.count("/") == 1 and n.endswith(".dist-info/METADATA")
            ),
            None,
        )
        if meta is None:
            return []
        text = archive.read(meta).decode("utf-8", "replace")
    found = []
    for line in Parser().parsestr(text, headersonly=True).get_all("Requires-Dist") or []:
        try:
            found.append(Requirement(line))
        except InvalidRequirement:
            continue
    return found


def _applies(req: Requirement, python: str, extras: Iterable[str]) -> bool:
    if req.marker is None:
        return True
    env = {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }
    return any(req.marker.evaluate({**env, "extra": extra}) for extra in ("", *extras))


def select_wheels(wheelhouse: Path, requirements: Iterable[str], python: str) -> WheelSelection:
    projects = _index(wheelhouse)
    todo = [Requirement(r) for r in requirements]
    seen: dict[NormalizedName, set[str]] = {}
    missing: set[str] = set()
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen and req.extras <= seen[name]:
            continue
        seen.setdefault(name, set()).update(req.extras)
        files = projects.get(name)
        if not files:
            missing.add(name)
            continue
        wheels = [f for f in files if f.name.endswith(".whl")]
        if not wheels:
            return _whole(projects, missing, f"{files[0].name} is an sdist")
        for wheel in wheels:
            todo.extend(r for r in wheel_requirements(wheel) if _applies(r, python, req.extras))
    chosen = sorted((f for n in seen for f in projects.get(n, ())), key=lambda p: p.name)
    return WheelSelection(files=tuple(chosen), whole=False, missing=tuple(sorted(missing)))


def _whole(
    projects: dict[NormalizedName, list[Path]], missing: set[str], why: str
) -> WheelSelection:
    files = sorted((f for group in projects.values() for f in group), key=lambda p: p.name)
    return WheelSelection(
        files=tuple(files),
        whole=True,
        missing=tuple(sorted(missing)),
        reason=f"copied the whole wheelhouse: {why}, whose dependencies cannot be read unbuilt",
    )


def require_wheels(wheelhouse: Path, requirements: Sequence[str], python: str) -> WheelSelection:
    """The wheels an offline build installs, checked before the build starts: a wheelhouse
    without them would fail minutes later inside the pip step.

    Raises:
        UsageError: the folder holds no wheel, or lacks a project the requirements reach
            (named, with the command that fills it).
    """
    selection = select_wheels(wheelhouse, requirements, python)
    hint = (
        f"fill it where the index is reachable: `gpudoctor build ... --download-wheels "
        f"{wheelhouse}` (the same build options), then copy the folder here"
    )
    if not any(_project_name(p) for p in wheelhouse.iterdir()):
        raise UsageError(f"--wheelhouse {wheelhouse}: holds no wheel", hint=hint)
    if selection.missing:
        raise UsageError(
            f"--wheelhouse {wheelhouse}: lacks {', '.join(selection.missing)} (needed by "
            f"{', '.join(requirements)} for Python {python})",
            hint=hint,
        )
    return selection


def wheel_manifest(files: Sequence[Path]) -> str:
    """One line per served file: its name, size and a digest of its zip directory (every
    member's name, CRC-32 and size): a changed wheel changes it, and reading it costs the
    directory at the end of the file, not the gigabytes before it."""
    import hashlib

    lines = []
    for path in sorted(files, key=lambda p: p.name):
        digest = hashlib.sha256()
        try:
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    digest.update(f"{info.filename}\0{info.CRC}\0{info.file_size}\n".encode())
        except (zipfile.BadZipFile, OSError):  # an sdist: its bytes are small enough to hash
            digest.update(path.read_bytes())
        lines.append(f"{path.name} {path.stat().st_size} sha256-dir:{digest.hexdigest()}\n")
    return "".join(lines)
