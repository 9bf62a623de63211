#!/usr/bin/env python3
"""Read a framework release's wheels without importing them, and print the matrix fields they
establish, each with its evidence.

    scripts/read_wheel.py torch==2.15.0                    # METADATA and torch/version.py
    scripts/read_wheel.py torch==2.15.0 --fatbins          # + compiled architectures (~500 MB)
    scripts/read_wheel.py torch==2.14.1+cu130 --index-url https://download.pytorch.org/whl/cu130
    scripts/read_wheel.py tensorflow==2.21.0
    scripts/read_wheel.py ./torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl --fatbins
    scripts/read_wheel.py torch==2.15.0 --pip-download     # pip download --no-deps, then read

The index is pip's configured one unless --index-url says otherwise. Remote wheels are read
through HTTP range requests (METADATA costs a few kilobytes); --pip-download fetches the wheel
with `pip download --no-deps` into a temporary folder instead, and deletes it after reading.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from gpudoctor.errors import GpuDoctorError
from gpudoctor.wheels import index, release
from gpudoctor.wheels.fields import Field, release_fields
from gpudoctor.wheels.index import IndexFile
from gpudoctor.wheels.release import ReleaseWheels
from gpudoctor.wheels.wheel import python_tag, read_wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", help="PROJECT==VERSION, or the path of a .whl file")
    parser.add_argument("--index-url", help="simple index (default: pip's configured index)")
    parser.add_argument("--python", help="read the wheel for this Python (e.g. 3.12)")
    parser.add_argument("--fatbins", action="store_true", help="read compiled architectures")
    parser.add_argument(
        "--pip-download", action="store_true", help="fetch with pip download --no-deps"
    )
    args = parser.parse_args(argv)
    try:
        if args.what.endswith(".whl"):
            path = Path(args.what)
            with path.open("rb") as stream:
                facts = read_wheel(stream, path.name, fatbins=args.fatbins)
            tag = python_tag(path.name)
            wheels = ReleaseWheels(facts.name, Version(facts.version), ())
            _print(facts.name, facts.version, f"file {path}", release_fields(wheels, facts))
            if tag:
                print(f"  (one wheel read: Python {tag}; the index lists the others)")
            return 0
        return _from_index(args)
    except GpuDoctorError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        return int(exc.exit_code)


def _from_index(args: argparse.Namespace) -> int:
    requirement = Requirement(args.what)
    pinned = [s.version for s in requirement.specifier if s.operator in ("==", "===")]
    if len(pinned) != 1:
        print("error: give one exact release, PROJECT==VERSION", file=sys.stderr)
        return 2
    index_url = args.index_url or index.pip_index_url()
    found = release.releases(requirement.name, index.project_files(index_url, requirement.name))
    wanted = Version(pinned[0])
    if wanted not in found:
        versions = ", ".join(str(v) for v in sorted(found)[-8:])
        print(
            f"error: {requirement.name} {wanted} has no Linux x86_64 CPython wheel on {index_url}",
            file=sys.stderr,
        )
        print(f"hint: newest there: {versions}", file=sys.stderr)
        return 2
    wheels = found[wanted]
    wheel = wheels.representative()
    if args.python:
        matching = [w for w in wheels.wheels if python_tag(w.filename) == args.python]
        if not matching:
            print(f"error: no wheel for Python {args.python}", file=sys.stderr)
            return 2
        wheel = matching[0]
    if args.pip_download:
        facts = _pip_download(requirement.name, str(wanted), wheel, index_url, args.fatbins)
    else:
        facts = release.read(wheel, fatbins=args.fatbins)
    _print(requirement.name, str(wanted), wheel.url, release_fields(wheels, facts))
    return 0


def _pip_download(
    project: str, version: str, wheel: IndexFile, index_url: str, fatbins: bool
) -> release.WheelFacts:
    tag = python_tag(wheel.filename) or "3"
    with tempfile.TemporaryDirectory(prefix="gpudoctor-wheel-") as folder:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--index-url",
                index_url,
                "--platform",
                "manylinux_2_28_x86_64",
                "--python-version",
                tag,
                "-d",
                folder,
                f"{project}=={version}",
            ],
            check=True,
        )
        path = next(Path(folder).glob("*.whl"))
        with path.open("rb") as stream:
            return read_wheel(stream, path.name, fatbins=fatbins)


def _print(project: str, version: str, origin: str, fields: list[Field]) -> None:
    print(f"{project} {version}   ({origin})")
    width = max((len(f.key) for f in fields), default=0)
    for f in fields:
        print(f"  {f.key:<{width}} = {f.toml()}")
        print(f"  {'':<{width}}   evidence: {f.evidence}")


if __name__ == "__main__":
    sys.exit(main())
