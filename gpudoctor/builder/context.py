"""The build context: a deterministic tar holding only what the Dockerfile COPYs.

Dockerfile, requirement files, the verify script and (offline builds) the wheels actually needed.
Entries are sorted, owned by 0:0 with empty owner names, and dated 0, so equal inputs give a
byte-identical tar and the classic builder's COPY cache hits on a rebuild (repo2docker resets
owners in `_filter_tar` for the same reason).
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.builder.render import requirements_files
from gpudoctor.builder.spec import ImageSpec
from gpudoctor.builder.wheelhouse import select_wheels


@dataclass(frozen=True)
class BuildContext:
    path: Path  # the tar file
    files: tuple[str, ...]  # names inside it, sorted
    size: int  # bytes of the tar
    notes: tuple[str, ...] = ()  # what the user should know (whole wheelhouse copied, missing)


def context_members(
    spec: ImageSpec, dockerfile: str, template_dir: Path
) -> tuple[dict[str, bytes | Path], tuple[str, ...]]:
    """(name -> content or file, notes): everything the context will hold."""
    members: dict[str, bytes | Path] = {"Dockerfile": dockerfile.encode("utf-8")}
    for name, text in requirements_files(spec).items():
        members[name] = text.encode("utf-8")
    notes: tuple[str, ...] = ()
    if spec.wheelhouse is not None and spec.wheel_url is None:  # served wheels stay out
        wheels, notes = _wheel_members(spec)
        members.update(wheels)
    return members, notes


def _wheel_members(spec: ImageSpec) -> tuple[dict[str, bytes | Path], tuple[str, ...]]:
    assert spec.wheelhouse is not None
    selection = select_wheels(
        spec.wheelhouse, (*spec.requirements, *spec.extra_requirements), spec.python
    )
    notes = [selection.reason] if selection.whole else []
    members: dict[str, bytes | Path] = {f"wheels/{p.name}": p for p in selection.files}
    return members, tuple(notes)


def write_context(
    spec: ImageSpec, dockerfile: str, template_dir: Path, directory: Path
) -> BuildContext:
    """Write the context tar into `directory` (a temporary folder the caller owns)."""
    members, notes = context_members(spec, dockerfile, template_dir)
    path = directory / "context.tar"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        if spec.wheelhouse is not None and spec.wheel_url is None:  # the Dockerfile COPYs it
            tar.addfile(_info("wheels", 0, tarfile.DIRTYPE, 0o755))
        for name in sorted(members):
            content = members[name]
            if isinstance(content, Path):
                with content.open("rb") as fileobj:
                    tar.addfile(_info(name, content.stat().st_size), fileobj)
            else:
                tar.addfile(_info(name, len(content)), io.BytesIO(content))
    return BuildContext(
        path=path, files=tuple(sorted(members)), size=path.stat().st_size, notes=notes
    )


def _info(
    name: str, size: int, kind: bytes = tarfile.REGTYPE, mode: int = 0o644
) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = kind
    info.mode = mode
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info
