"""Properties of resolve(), checked by an independent brute-force oracle over every candidate:
a resolved row satisfies every constraint of its request, and no newer build satisfies them;
when resolve finds nothing, no candidate satisfies them either."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.errors import NoMatchingRow
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import BaseImage, Matrix
from gpudoctor.matrix.queries import arch_list_covers, architecture_for
from tests.support.matrices import SMALL


def _n(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


@dataclass(frozen=True)
class Candidate:
    """One framework build, as the oracle sees it."""

    version: str
    cuda: str
    python: tuple[str, ...]
    arch_list: tuple[str, ...] | None
    verified: bool  # it exists (docs/matrix-format.md, "Provenance")
    system_cudnn: bool
    cudnn: str


def candidates(matrix: Matrix, framework: str) -> Iterator[Candidate]:
    if framework == "pytorch":
        for r in matrix.pytorch:
            for v in r.variants:
                yield Candidate(
                    r.version,
                    v.cuda,
                    r.python,
                    v.arch_list,
                    (r.verified or bool(r.exists)) and (v.verified or bool(v.exists)),
                    False,
                    v.cudnn,
                )
    else:
        for t in matrix.tensorflow:
            yield Candidate(
                t.version,
                t.cuda,
                t.python,
                None,
                t.verified or bool(t.exists),
                "[and-cuda]" not in t.pip,
                t.cudnn,
            )


def spec(text: str) -> SpecifierSet:
    if text[0].isdigit():
        return SpecifierSet(f"=={text}.*")
    return SpecifierSet(text)


def gpu_ok(matrix: Matrix, c: Candidate, cc: str) -> bool:
    if c.arch_list is not None:
        return arch_list_covers(c.arch_list, cc).ok
    # No arch list: the toolkit must target the GPU or an earlier architecture of its major
    # (whose cubins run on later minors), and must not have dropped it.
    arch = architecture_for(matrix, cc)
    if arch is None or (arch.max_cuda is not None and _n(c.cuda) > _n(arch.max_cuda)):
        return False
    major, minor = _n(cc)[:2]
    return any(
        _n(a.compute_capability)[0] == major
        and _n(a.compute_capability)[1] <= minor
        and _n(c.cuda) >= _n(a.min_cuda)
        for a in matrix.architectures
    )


def floor(matrix: Matrix, c: Candidate) -> tuple[int, ...]:
    """The oldest driver that runs the build: its major's minor-version floor; before CUDA 11
    (no [[cuda_major]] row: no minor-version compatibility) its release's own floor."""
    major = int(c.cuda.split(".")[0])
    row = next((m for m in matrix.cuda_majors if m.major == major), None)
    if row is None:
        ga = min((r for r in matrix.cuda if r.major_minor == c.cuda), key=lambda r: _n(r.version))
        return _n(ga.min_driver_linux)
    return _n(row.minor_compat_min_driver_linux)


def native(matrix: Matrix, c: Candidate, driver: str) -> bool:
    ga = min((r for r in matrix.cuda if r.major_minor == c.cuda), key=lambda r: _n(r.version))
    return _n(ga.min_driver_linux) <= _n(driver)


def plain(c: Candidate, req: ResolveRequest) -> bool:
    return not c.system_cudnn and (req.flavor or "runtime") == "runtime"


def build_ok(matrix: Matrix, c: Candidate, req: ResolveRequest) -> bool:
    release_level = req.cuda is not None and req.cuda[0].isdigit() and req.cuda.count(".") >= 2
    return (
        (req.driver is None or floor(matrix, c) <= _n(req.driver))
        # --cuda 12.4.1 means 12.4 for a runtime row on a plain base (its base is no CUDA image)
        and (not (release_level and plain(c, req)) or c.cuda == _mm(req.cuda))
        and (req.version is None or spec(req.version).contains(c.version, prereleases=True))
        and (req.cuda is None or release_level or spec(req.cuda).contains(c.cuda))
        and (req.python is None or req.python in c.python)
        and (c.verified or req.allow_unverified)
        and all(gpu_ok(matrix, c, cc) for cc in req.compute_capabilities)
    )


def distro_pythons(matrix: Matrix, distro: str, req: ResolveRequest) -> tuple[str, ...]:
    """Pythons the distro packages (none when the matrix has no usable row for it)."""
    row = next((d for d in matrix.distros if d.name == distro), None)
    if row is None or not (row.verified or req.allow_unverified):
        return ()
    return row.pythons


def distro_ok(matrix: Matrix, c: Candidate, image: BaseImage, req: ResolveRequest) -> bool:
    """Some distro of the image (the asked one, if any) packages a Python the request can use."""
    distros = [req.distro] if req.distro else list(image.distros)
    return any(
        d in image.distros
        and any(
            p in c.python and (req.python is None or p == req.python)
            for p in distro_pythons(matrix, d, req)
        )
        for d in distros
    )


def image_ok(matrix: Matrix, c: Candidate, image: BaseImage, req: ResolveRequest) -> bool:
    release = next((r for r in matrix.cuda if r.version == image.cuda), None)
    if release is None or _n(image.cuda)[:2] != _n(c.cuda):
        return False
    release_level = req.cuda is not None and req.cuda[0].isdigit() and req.cuda.count(".") >= 2
    cudnn_ok = not c.system_cudnn or (
        image.cudnn_tag is not None
        and (image.cudnn is None or image.cudnn.split(".")[0] == c.cudnn.split(".")[0])
    )
    return (
        (not release_level or spec(req.cuda or "").contains(image.cuda))
        and (req.flavor or "runtime") in image.flavors
        and (req.distro is None or req.distro in image.distros)
        and ((image.verified and release.verified) or req.allow_unverified)
        and cudnn_ok
        and distro_ok(matrix, c, image, req)
    )


def plain_ok(matrix: Matrix, c: Candidate, req: ResolveRequest) -> bool:
    """A plain distro base: the distros of the build's nvidia/cuda release when it has one."""
    offered = {d for i in matrix.base_images if _n(i.cuda)[:2] == _n(c.cuda) for d in i.distros}
    rows = [d for d in matrix.distros if d.image]
    names = [d.name for d in rows if d.name in offered] or [d.name for d in rows]
    if req.distro:  # an asked distro needs only a plain image
        names = [d.name for d in rows if d.name == req.distro]
    return any(
        any(
            p in c.python and (req.python is None or p == req.python)
            for p in distro_pythons(matrix, d, req)
        )
        for d in names
    )


def satisfiable(matrix: Matrix, c: Candidate, req: ResolveRequest) -> bool:
    if not build_ok(matrix, c, req):
        return False
    if plain(c, req):
        return plain_ok(matrix, c, req)
    return any(image_ok(matrix, c, image, req) for image in matrix.base_images)


def assert_row_meets_request(matrix: Matrix, row: ResolvedRow, req: ResolveRequest) -> None:
    assert row.framework == req.framework
    c = next(
        c
        for c in candidates(matrix, req.framework)
        if (c.version, c.cuda) == (row.version, row.cuda)
    )
    assert build_ok(matrix, c, req)
    packaged = distro_pythons(matrix, row.distro, req)
    assert row.python in packaged
    assert row.flavor == (req.flavor or "runtime")
    assert req.distro is None or row.distro == req.distro
    assert req.driver is None or _n(row.min_driver_linux) <= _n(req.driver)
    if plain(c, req):
        assert row.cuda_release is None
        assert row.base_image == next(d.image for d in matrix.distros if d.name == row.distro)
        return
    image = next(
        i for i in matrix.base_images if row.base_image.startswith(f"{i.repository}:{i.cuda}-")
    )
    assert image.cuda == row.cuda_release
    assert image_ok(matrix, c, image, req)
    assert row.python in packaged
    assert row.python == (req.python or max((p for p in c.python if p in packaged), key=_n))
    assert row.flavor == (req.flavor or "runtime")
    assert req.distro is None or row.distro == req.distro
    assert row.distro in image.distros
    assert req.driver is None or _n(row.min_driver_linux) <= _n(req.driver)
    assert row.base_image.endswith(f"-{row.flavor}-{row.distro}")


def check(matrix: Matrix, req: ResolveRequest) -> None:
    all_candidates = list(candidates(matrix, req.framework))
    try:
        row = resolve(matrix, req)
    except NoMatchingRow:
        assert not any(satisfiable(matrix, c, req) for c in all_candidates)
        return
    assert_row_meets_request(matrix, row, req)
    # The newest release that has a satisfiable build wins; within it, a build the driver runs
    # natively before one it runs by minor-version compatibility, then the newest CUDA.
    good = [c for c in all_candidates if satisfiable(matrix, c, req)]
    assert not [c for c in good if Version(c.version) > Version(row.version)]
    same = [c for c in good if c.version == row.version]

    def key(c: Candidate) -> tuple[bool, tuple[int, ...]]:
        return (req.driver is None or native(matrix, c, req.driver), _n(c.cuda))

    chosen = next(c for c in same if c.cuda == row.cuda)
    assert key(chosen) == max(key(c) for c in same)


DRIVERS = [
    "450.80.02", "470.57.02", "520.61.05", "530.30.02", "535.104.05", "550.54.14",
    "550.54.15", "560.28.03", "560.35.05", "570.124.06", "575.51.03", "580.65.06", "590.44.01",
]  # fmt: skip
CCS = ["3.7", "5.0", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"]

requests = st.builds(
    ResolveRequest,
    framework=st.sampled_from(["pytorch", "tensorflow"]),
    version=st.none()
    | st.sampled_from(
        ["2.5", "2.7", "2.6", "2.5.1", ">=2.5", "<2.7", "2.15", "2.12", ">=2.13", "2"]
    ),
    cuda=st.none()
    | st.sampled_from(
        ["11.8", "12", "12.1", "12.4", "12.4.1", "12.6.0", "12.8", ">=12.2", "<12.5", "13"]
    ),
    python=st.none() | st.sampled_from(["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"]),
    driver=st.none() | st.sampled_from(DRIVERS),
    compute_capabilities=st.lists(st.sampled_from(CCS), max_size=2, unique=True).map(tuple),
    flavor=st.none() | st.sampled_from(["runtime", "devel"]),
    distro=st.none() | st.sampled_from(["ubuntu20.04", "ubuntu22.04", "ubuntu24.04", "ubi8"]),
    allow_unverified=st.booleans(),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_resolve_on_the_small_matrix_is_newest_and_correct(req: ResolveRequest) -> None:
    check(load_matrix(SMALL), req)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_resolve_on_the_shipped_matrix_is_newest_and_correct(req: ResolveRequest) -> None:
    check(load_matrix(), req)


def _mm(cuda: str | None) -> str:
    return ".".join((cuda or "").split(".")[:2])
