"""Pick the files of a wheelhouse that an offline build needs.

Starting from the requirement names, follow each wheel's `Requires-Dist` (read from the wheel's
METADATA, no install) with markers evaluated for the image's Python on Linux, and keep every file
of every project reached. A needed project available only as an sdist has dependencies we cannot
read without building it, so then the whole wheelhouse goes into the context (and we say so).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
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


@dataclass(frozen=True)
class WheelSelection:
    files: tuple[Path, ...]  # sorted by name
    whole: bool  # True: every file of the wheelhouse, dependencies could not all be followed
    missing: tuple[str, ...]  # needed projects the wheelhouse does not have
    reason: str = ""


def _index(wheelhouse: Path) -> dict[NormalizedName, list[Path]]:
    projects: dict[NormalizedName, list[Path]] = {}
    for path in sorted(wheelhouse.iterdir()):
        name = _project_name(path)
        if name is not None:
            projects.setdefault(name, []).append(path)
    return projects


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
    """The Requires-Dist entries of a wheel (unparseable ones are skipped: pip will say)."""
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
