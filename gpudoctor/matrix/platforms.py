"""Where a framework build exists: per machine (x86_64, aarch64) and on which pip index.

The one rule: every `[[pytorch.variants]]` and `[[tensorflow]]` row describes an x86_64 Linux
build, published on the row's own index (PyTorch: download.pytorch.org/whl/cuXYZ; TensorFlow:
PyPI). A release exists for another machine only where a `[[wheel]]` row says so, with the
CUDA that machine's wheel brings ("none": CPU-only). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix, PlatformWheel

X86_64 = "x86_64"
AARCH64 = "aarch64"
MACHINES = (X86_64, AARCH64)
# `uname -m`, Docker's /info "Architecture" and OCI platform names, to one spelling.
_ALIASES = {
    "x86_64": X86_64,
    "amd64": X86_64,
    "linux/amd64": X86_64,
    "aarch64": AARCH64,
    "arm64": AARCH64,
    "linux/arm64": AARCH64,
    "linux/arm64/v8": AARCH64,
}
DOCKER_PLATFORM = {X86_64: "linux/amd64", AARCH64: "linux/arm64"}


def machine_of(text: str | None) -> str | None:
    """The canonical machine for `uname -m`, a Docker architecture or an OCI platform; None when
    unknown or unsupported ("ppc64le")."""
    if text is None:
        return None
    return _ALIASES.get(text.strip().lower())


@dataclass(frozen=True)
class Availability:
    """Whether a build exists for a machine, and from which index pip installs it."""

    ok: bool
    machine: str
    index_url: str | None  # pip --index-url; None: PyPI
    verified: bool  # what says so was read from the wheels (x86_64: the row itself)
    reason: str  # where it comes from, or why it does not exist
    exists: bool = True  # a primary source settles that it exists (or it was read)
    unread: tuple[str, ...] = ()  # facts of this machine's wheel not read from it ("cuda")


def available_on(
    matrix: Matrix,
    framework: str,
    version: str,
    cuda: str,
    *,
    machine: str | None,
    row_index_url: str | None,
) -> Availability:
    """Is the `framework` `version` build with CUDA `cuda` published for `machine` (None: unknown,
    judged as x86_64)? `row_index_url` is the matrix row's own index (None: PyPI)."""
    target = machine_of(machine) or X86_64
    if target == X86_64:
        return Availability(True, target, row_index_url, True, "an x86_64 build (matrix row)")
    rows = [w for w in wheels_for(matrix, framework, version, target) if w.cuda == cuda]
    if rows:
        # Prefer what settles existence, then what was read from the wheels, then PyPI (no
        # extra index to trust).
        best = sorted(rows, key=lambda w: (not _settled(w), not w.verified, w.index != "pypi"))[0]
        index = None if best.index == "pypi" else best.index
        where = "PyPI" if index is None else index
        unread = () if best.verified else tuple(f for f in ("cuda",) if f not in best.read)
        return Availability(
            True,
            target,
            index,
            best.verified,
            f"{target} wheel on {where}",
            exists=_settled(best),
            unread=unread,
        )
    cpu = pypi_cpu_only(matrix, framework, version, target)
    why = f"no {target} wheel of {framework} {version} with CUDA {cuda} is known"
    if cpu is not None:
        why += f" (PyPI's {target} wheel of {version} is CPU-only)"
    return Availability(False, target, None, False, why, exists=False)


def _settled(row: PlatformWheel) -> bool:
    """A primary source says the wheel exists, or it was read."""
    return row.verified or bool(row.exists)


def machines_of(matrix: Matrix, framework: str, version: str, cuda: str) -> tuple[str, ...]:
    """Every machine the build is published for (x86_64 always: the row itself): the field a
    build record carries, so a consumer can test `machine in build.platforms`."""
    return tuple(
        m
        for m in MACHINES
        if available_on(matrix, framework, version, cuda, machine=m, row_index_url=None).ok
    )


def wheels_for(matrix: Matrix, framework: str, version: str, machine: str) -> list[PlatformWheel]:
    """The `[[wheel]]` rows of one release on one machine (the release's public version)."""
    public = version.partition("+")[0]
    return [
        w
        for w in matrix.wheels
        if w.framework == framework and w.version == public and w.machine == machine
    ]


def pypi_cpu_only(
    matrix: Matrix, framework: str, version: str, machine: str | None
) -> PlatformWheel | None:
    """The row saying plain `pip install` of this release on `machine` gives a CPU-only build
    (PyPI's aarch64 torch through 2.10.0, TensorFlow on aarch64); None otherwise."""
    target = machine_of(machine)
    if target is None or target == X86_64:
        return None
    exact = [w for w in wheels_for(matrix, framework, version, target) if w.index == "pypi"]
    if exact:
        return next((w for w in exact if w.cpu_only), None)
    return _between_cpu_only(matrix, framework, versions.public(version), target)


def _between_cpu_only(
    matrix: Matrix, framework: str, version: str, machine: str
) -> PlatformWheel | None:
    """A release the `[[wheel]]` rows do not list, judged by the PyPI rows either side of it:
    the rows sample one release of each minor, and PyPI's wheels for a machine change what they
    bring at one release (PyPI's aarch64 torch gained CUDA at 2.11.0), so a release between two
    CPU-only rows, or below the oldest one in that row's own minor ("2.0.0" beside "2.0.1"), is
    CPU-only too. Returns the lower row, its version and note saying so; None when a neighbour
    brings CUDA, is missing, or the version is not a plain release."""
    try:
        wanted = versions.pep440(version)
    except ValueError:
        return None
    if wanted.local or wanted.is_prerelease or wanted.is_devrelease or len(wanted.release) < 3:
        return None
    rows = sorted(
        (
            w
            for w in matrix.wheels
            if w.framework == framework and w.machine == machine and w.index == "pypi"
        ),
        key=lambda w: versions.pep440(w.version),
    )
    lower = [w for w in rows if versions.pep440(w.version) < wanted]
    upper = [w for w in rows if versions.pep440(w.version) > wanted]
    if not upper or not upper[0].cpu_only:
        return None
    above = upper[0]
    if lower:
        below = lower[-1]
        if not below.cpu_only:
            return None
        said = (
            f"PyPI's {machine} wheels of {below.version} and {above.version}, the releases "
            "either side of it that the matrix lists, are CPU-only builds"
        )
    elif wanted.release[:2] == versions.pep440(above.version).release[:2]:
        below = above
        said = (
            f"PyPI's {machine} wheel of {above.version}, the release of its minor that the "
            "matrix lists, is a CPU-only build"
        )
    else:
        return None
    return replace(
        below, version=version, wheel=None, verified=False, notes=f"no row for {version}: {said}"
    )


def first_cuda_on_pypi(matrix: Matrix, framework: str, machine: str) -> PlatformWheel | None:
    """The oldest release whose PyPI wheel for `machine` brings CUDA: where the trap ends."""
    rows = [
        w
        for w in matrix.wheels
        if w.framework == framework and w.machine == machine and w.index == "pypi"
    ]
    rows = [w for w in rows if not w.cpu_only]
    return min(rows, key=lambda w: versions.pep440(w.version), default=None)


def pip_index_args(index_url: str | None) -> str:
    """The index part of a pip command: "" for PyPI (no URL), " --index-url URL" otherwise."""
    return f" --index-url {index_url}" if index_url else ""


def image_on_platform(
    matrix: Matrix, repository: str, cuda_release: str, machine: str | None
) -> tuple[bool, bool]:
    """(published, verified) for the `repository` image of `cuda_release` on `machine`: every
    `[[base_image]]` row is linux/amd64; another platform needs an `[[image_platform]]` row."""
    target = machine_of(machine) or X86_64
    if target == X86_64:
        return True, True
    rows = [
        row
        for row in matrix.image_platforms
        if row.repository == repository
        and row.platform == DOCKER_PLATFORM[target]
        and numeric(cuda_release) >= numeric(row.min_cuda)
    ]
    return bool(rows), any(row.verified for row in rows)
