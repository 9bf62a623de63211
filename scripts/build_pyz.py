"""Build dist/gpudoctor.pyz: gpudoctor as one file that runs on any Python 3.9 or newer.

    python3 scripts/build_pyz.py [--out dist/gpudoctor.pyz] [--cache build/pyz-cache] [--offline]

The file is a zipapp (PEP 441): a `#!/usr/bin/env python3` line, then a zip holding gpudoctor,
its data where the wheel puts it (matrices/, templates/ and docs/ under gpudoctor/_data/) and
the pure-Python dependencies pinned, with their hashes, in scripts/pyz-requirements.txt. Copy it
to a host and run `python3 gpudoctor.pyz check`: no pip, no venv, no network.

The wheels come from the package index pip is configured with (`pip download`, run with this
interpreter) into the cache folder, once; every build checks their hashes. The archive is
reproducible: entries sorted by name, fixed times and modes, no byte code (Python compiles
modules from a zip in memory), so two builds from the same tree are byte-identical (the
deflate output comes from zlib: the same zlib gives the same bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "scripts" / "pyz-requirements.txt"
SHEBANG = b"#!/usr/bin/env python3\n"
# The earliest time a zip entry can hold: a fixed stamp keeps two builds identical.
EPOCH = (1980, 1, 1, 0, 0, 0)
# Package data beside the code, as the wheel ships it (pyproject's force-include).
DATA = ("matrices", "templates", "docs")
# Compiled or non-Python files that cannot run from a zip, or that nothing imports.
_DROPPED_SUFFIXES = (".so", ".pyd", ".dylib", ".c", ".pyx", ".pyc", ".pyo")
_DROPPED_NAMES = {
    "example.py",  # nvidia-ml-py ships it at the top level: it would be an importable `example`
    "RECORD",  # describes an installation (and the files dropped above), not this archive
}

MAIN = """\
# gpudoctor as one file (built by scripts/build_pyz.py): `python3 gpudoctor.pyz check`.
# Kept to syntax that any Python 3 parses, so an old interpreter gets this message.
import sys

if sys.version_info < (3, 9):
    sys.stderr.write(
        "error: gpudoctor needs Python 3.9 or newer; this is Python %d.%d\\n"
        "hint: run it with a newer one, e.g. `python3.11 %s check` (ls /usr/bin/python3.*)\\n"
        % (sys.version_info[0], sys.version_info[1], sys.argv[0])
    )
    sys.exit(2)

from gpudoctor.cli.app import main

main()
"""

_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s+"
    r"--hash=sha256:(?P<sha256>[0-9a-f]{64})\s*(?:#\s*(?P<note>.*))?$"
)


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    sha256: str
    python_only: bool  # no pure-Python wheel exists: take the CPython 3.9 one, keep its .py files

    @property
    def canonical(self) -> str:
        return re.sub(r"[-_.]+", "-", self.name).lower()


class BuildError(Exception):
    pass


def read_pins(path: Path = REQUIREMENTS) -> list[Pin]:
    pins = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _PIN.match(line.strip())
        if match is None:
            raise BuildError(f"{path}:{number}: expected `NAME==VERSION --hash=sha256:HEX`")
        note = match["note"] or ""
        pins.append(Pin(match["name"], match["version"], match["sha256"], "python-only" in note))
    return pins


def _wheel_of(pin: Pin, folder: Path) -> Path | None:
    """The wheel of `pin` in `folder` (file names spell the project name with underscores)."""
    for wheel in sorted(folder.glob("*.whl")):
        name, version = wheel.name.split("-")[:2]
        if re.sub(r"[-_.]+", "-", name).lower() == pin.canonical and version == pin.version:
            return wheel
    return None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download(pins: list[Pin], cache: Path) -> None:
    """Fetch the missing wheels with pip into `cache` (one pip run per kind of wheel)."""
    pure = [p for p in pins if not p.python_only]
    platform = [p for p in pins if p.python_only]
    common = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    common += ["--disable-pip-version-check", "--only-binary=:all:", "--python-version", "3.9"]
    for group, tags in (
        (pure, ["--implementation", "py", "--abi", "none", "--platform", "any"]),
        (
            platform,
            ["--implementation", "cp", "--abi", "cp39", "--platform", "manylinux2014_x86_64"],
        ),
    ):
        if not group:
            continue
        specs = [f"{p.name}=={p.version}" for p in group]
        print(f"build_pyz: downloading {', '.join(specs)}", file=sys.stderr)
        done = subprocess.run([*common, *tags, "--dest", str(cache), *specs], check=False)
        if done.returncode != 0:
            raise BuildError(f"pip download failed (exit {done.returncode}) for {' '.join(specs)}")


def fetch(pins: list[Pin], cache: Path, *, offline: bool) -> list[Path]:
    """The pinned wheels, from the cache or downloaded into it; every hash checked."""
    cache.mkdir(parents=True, exist_ok=True)
    missing = [p for p in pins if _wheel_of(p, cache) is None]
    if missing and offline:
        names = ", ".join(f"{p.name}=={p.version}" for p in missing)
        raise BuildError(f"--offline, and {cache} lacks {names}")
    if missing:
        _download(missing, cache)
    wheels = []
    for pin in pins:
        wheel = _wheel_of(pin, cache)
        if wheel is None:
            raise BuildError(f"pip did not leave {pin.name}=={pin.version} in {cache}")
        digest = _sha256(wheel)
        if digest != pin.sha256:
            raise BuildError(
                f"{wheel} has sha256 {digest}, {REQUIREMENTS.name} pins {pin.sha256}: "
                "delete the file to download it again, or correct the pin"
            )
        wheels.append(wheel)
    return wheels


def _kept(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return not (
        name.endswith("/")
        or base in _DROPPED_NAMES
        or base.endswith(_DROPPED_SUFFIXES)
        or "__pycache__/" in name
        or name.split("/", 1)[0].endswith(".data")  # scripts and headers: not importable
    )


def wheel_entries(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {i.filename: archive.read(i) for i in archive.infolist() if _kept(i.filename)}


def _tree(folder: Path, prefix: str) -> dict[str, bytes]:
    """Every file under `folder` as `prefix/relative/path`, less caches and hidden files."""
    entries = {}
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if path.is_file() and not path.name.endswith((".pyc", ".pyo")):
            entries[f"{prefix}/{relative.as_posix()}"] = path.read_bytes()
    return entries


def source_entries(root: Path = ROOT) -> dict[str, bytes]:
    entries = _tree(root / "gpudoctor", "gpudoctor")
    for name in DATA:
        entries |= _tree(root / name, f"gpudoctor/_data/{name}")
    return entries


def write_archive(entries: dict[str, bytes], out: Path) -> None:
    """The zipapp, written next to `out` and renamed over it (never half a file there)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(SHEBANG)
            with zipfile.ZipFile(stream, "w") as archive:
                for name in sorted(entries):
                    info = zipfile.ZipInfo(name, date_time=EPOCH)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.create_system = 3  # Unix, whichever system builds it
                    info.external_attr = 0o100644 << 16
                    archive.writestr(info, entries[name], compresslevel=9)
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def build(out: Path, cache: Path, *, offline: bool = False) -> dict[str, bytes]:
    entries: dict[str, bytes] = {"__main__.py": MAIN.encode()}
    for wheel in fetch(read_pins(), cache, offline=offline):
        for name, data in wheel_entries(wheel).items():
            if name in entries:
                raise BuildError(f"{wheel.name} and another wheel both hold {name}")
            entries[name] = data
    for name, data in source_entries().items():
        if name in entries:
            raise BuildError(f"gpudoctor's {name} clashes with a vendored file")
        entries[name] = data
    write_archive(entries, out)
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / "gpudoctor.pyz")
    parser.add_argument(
        "--cache",
        type=Path,
        default=ROOT / "build" / "pyz-cache",
        help="where the downloaded wheels are kept (default: build/pyz-cache, ignored by git)",
    )
    parser.add_argument("--offline", action="store_true", help="fail rather than download")
    args = parser.parse_args(argv)
    try:
        entries = build(args.out, args.cache, offline=args.offline)
    except BuildError as exc:
        print(f"build_pyz: error: {exc}", file=sys.stderr)
        return 1
    size = args.out.stat().st_size
    print(
        f"build_pyz: wrote {args.out} ({len(entries)} files, {size / 1e6:.1f} MB)", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
