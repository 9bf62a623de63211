"""The compatibility model's tiers, kernels and preference order on the shipped matrix."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.compat.builds import enumerate_builds, matching
from gpudoctor.compat.choose import pick, rank
from gpudoctor.compat.host import Gpu, Host, datacenter_class
from gpudoctor.compat.requirement import start_requirement
from gpudoctor.compat.tiers import Tier, driver_tier, judge
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import default_matrix_path


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix(default_matrix_path())


def _host(driver: str, cc: str = "8.0", datacenter: bool | None = True, **kw: object) -> Host:
    return Host(driver=driver, gpus=(Gpu(0, cc, datacenter),), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("driver", "cuda", "datacenter", "tier"),
    [
        ("560.35.03", "12.6", True, Tier.NATIVE),
        ("535.104.05", "12.6", True, Tier.MINOR_VERSION),  # >= 525.60.13, the 12.x floor
        ("525.60.13", "12.8", False, Tier.MINOR_VERSION),
        ("470.256.02", "12.4", True, Tier.FORWARD_COMPAT),  # data-center: cuda-compat
        ("470.256.02", "12.4", False, Tier.NO),  # never on GeForce
        ("570.124.06", "13.0", True, Tier.FORWARD_COMPAT),
        ("570.124.06", "13.0", False, Tier.NO),  # 13.x needs R580
        ("470.256.02", "11.8", False, Tier.MINOR_VERSION),  # 11.x floor 450.80.02
    ],
)
def test_driver_tiers(
    shipped: Matrix, driver: str, cuda: str, datacenter: bool, tier: Tier
) -> None:
    got = driver_tier(shipped, _host(driver, datacenter=datacenter), cuda)
    assert got.tier is tier, got.reason
    if tier is Tier.MINOR_VERSION:
        assert "PTX" in got.limits
    if tier is Tier.NO:
        assert got.way_out.startswith("upgrade the driver to >= ")
    if tier is Tier.FORWARD_COMPAT:
        assert "cuda-compat-" in got.way_out


def test_the_windows_driver_under_wsl_is_judged_by_its_cuda_version(shipped: Matrix) -> None:
    wsl = _host("560.94", wsl=True, driver_cuda="12.6")
    assert driver_tier(shipped, wsl, "12.6").tier is Tier.NATIVE
    assert driver_tier(shipped, wsl, "12.8").tier is Tier.MINOR_VERSION
    assert driver_tier(shipped, wsl, "13.0").tier is Tier.NO


def test_only_the_driver_cuda_known_gives_minor_version_from_cuda_11_on(shipped: Matrix) -> None:
    # nvidia-smi's "CUDA Version" (or torch's cudaDriverGetVersion) without the driver's version
    by_cuda = Host(driver=None, driver_cuda="11.4", gpus=(Gpu(0, "8.0", True),))
    assert driver_tier(shipped, by_cuda, "11.8").tier is Tier.MINOR_VERSION
    assert driver_tier(shipped, by_cuda, "11.2").tier is Tier.NATIVE
    # CUDA 10 had no minor-version compatibility: a 10.2 build needs a driver of 10.2
    old = replace(by_cuda, driver_cuda="10.1")
    got = driver_tier(shipped, old, "10.2")
    assert got.tier is Tier.NO, got.reason
    assert "10.1, older than 10.2" in got.reason


def test_ptx_jit_does_not_count_under_minor_version(shipped: Matrix) -> None:
    (build,) = matching(enumerate_builds(shipped, "pytorch"), "2.5", "12.4")
    ptx = replace(build, arch_list=("8.0", "9.0+PTX"))
    assert judge(shipped, _host("560.35.03", "10.0"), ptx).runs  # native: JIT works
    minor = judge(shipped, _host("535.104.05", "10.0"), ptx)
    assert not minor.runs
    assert "JIT" in minor.problems()[0]


def test_a_machine_without_the_build_gets_no(shipped: Matrix) -> None:
    # PyPI's aarch64 wheel of 2.2.2 is CPU-only, and no aarch64 cu121 wheel is known.
    (build,) = matching(enumerate_builds(shipped, "pytorch"), "2.2", "12.1")
    verdict = judge(shipped, _host("580.65.06", machine="aarch64"), build)
    assert not verdict.runs
    assert "no aarch64 wheel of pytorch 2.2.2 with CUDA 12.1" in verdict.problems()[0]
    assert "CPU-only" in verdict.problems()[0]


def test_a_build_published_for_aarch64_installs_from_its_aarch64_index(shipped: Matrix) -> None:
    (build,) = matching(enumerate_builds(shipped, "pytorch"), "2.11", "13.0")
    assert build.platforms == ("x86_64", "aarch64")
    verdict = judge(shipped, _host("580.65.06", machine="aarch64"), build)
    assert not verdict.platform_problem
    assert verdict.index_url is None  # PyPI: its aarch64 wheel brings CUDA 13.0
    assert judge(shipped, _host("580.65.06"), build).index_url == build.index_url


def test_native_is_preferred_only_within_a_release(shipped: Matrix) -> None:
    a100_r535 = _host("535.104.05")
    newest = pick(shipped, a100_r535, "pytorch")
    assert newest is not None
    # The newest CUDA 12 build that exists (2.14's cu126, named by its release build matrix;
    # its wheel was not read: the row says so, and selection ranks it by the same rule).
    assert (newest.build.version, newest.build.cuda, newest.tier) == (
        "2.14.1",
        "12.6",
        Tier.MINOR_VERSION,
    )
    assert newest.unread
    native = pick(shipped, a100_r535, "pytorch", native_only=True)
    assert native is not None
    assert native.native
    release = matching(enumerate_builds(shipped, "pytorch"), "2.5", None)
    order = [v.build.cuda for v in rank(shipped, a100_r535, release)]
    assert order == ["12.1", "11.8", "12.4"]  # native (530.30.02, 520.61.05) before minor
    # one rule, no read-first pass: the native cu121 build wins within 2.5
    within = pick(shipped, a100_r535, "pytorch", version="2.5")
    assert within is not None
    assert within.build.cuda == "12.1"


def test_start_requirement_is_the_major_floor(shipped: Matrix) -> None:
    (build,) = matching(enumerate_builds(shipped, "pytorch"), "2.14", "12.6")
    rule = start_requirement(shipped, build)
    assert rule is not None
    assert (rule.min_driver, rule.require_cuda) == ("525.60.13", "cuda>=12.0")
    assert rule.native_driver == "560.28.03"


@pytest.mark.parametrize(
    ("brand", "expected"), [("geforce", False), ("titan", False), ("nvidia", True), (None, None)]
)
def test_gpu_class_from_the_nvml_brand(brand: str | None, expected: bool | None) -> None:
    assert datacenter_class(brand) is expected
