"""Queries: CUDA's driver rules and the cubin/PTX architecture rules, with real numbers."""

from __future__ import annotations

import pytest

from gpudoctor.errors import BadValue
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.queries import (
    Tier,
    arch_list_covers,
    architecture_for,
    cuda_release,
    driver_supports_cuda,
    mig_gpu_for,
    min_driver_for_cuda,
    minor_compat_floor,
    newest_cuda_for_driver,
    pytorch_release_for,
    pytorch_variant_for,
    tensorflow_release_for,
)


def test_cuda_release_major_minor_means_newest_patch(small: Matrix) -> None:
    assert cuda_release(small, "12.4") is not None
    assert cuda_release(small, "12.4").version == "12.4.1"  # type: ignore[union-attr]
    assert cuda_release(small, "12.4.0").version == "12.4.0"  # type: ignore[union-attr]
    assert cuda_release(small, "12").version == "12.8.1"  # type: ignore[union-attr]
    assert cuda_release(small, "12.3") is None
    assert cuda_release(small, "12.4.2") is None


def test_min_driver_is_the_ga_release_for_major_minor(small: Matrix) -> None:
    assert min_driver_for_cuda(small, "12.4") == "550.54.14"  # 12.4.0 GA
    assert min_driver_for_cuda(small, "12.4.1") == "550.54.15"  # Update 1
    assert min_driver_for_cuda(small, "12.4", platform="windows") == "551.61"
    assert min_driver_for_cuda(small, "12.6") == "560.28.03"
    assert min_driver_for_cuda(small, "12.1") == "530.30.02"  # only 12.1.1 listed: its minimum
    assert min_driver_for_cuda(small, "10.2") is None


def test_an_unlisted_patch_release_needs_what_its_minor_needs(small: Matrix) -> None:
    # torch 1.x reports its CUDA as "10.1.243": judged by the nearest earlier release listed.
    assert min_driver_for_cuda(small, "12.4.99") == "550.54.15"  # at least 12.4.1's
    assert min_driver_for_cuda(small, "12.4.0") == "550.54.14"
    assert min_driver_for_cuda(small, "12.1.5") == "530.30.02"  # 12.1.1's
    assert min_driver_for_cuda(small, "12.3.2") is None  # another minor is never borrowed


def test_minor_compat_floors(small: Matrix) -> None:
    assert minor_compat_floor(small, 12) == "525.60.13"
    assert minor_compat_floor(small, 11) == "450.80.02"
    assert minor_compat_floor(small, 11, platform="windows") == "452.39"
    assert minor_compat_floor(small, 13, platform="windows") is None
    assert minor_compat_floor(small, 10) is None


def test_driver_meeting_the_release_minimum_is_ok_via_release(small: Matrix) -> None:
    verdict = driver_supports_cuda(small, "550.54.15", "12.4")
    assert verdict.ok
    assert verdict.tier is Tier.NATIVE
    assert verdict.required == "550.54.14"
    assert verdict.floor == "525.60.13"


def test_525_runs_cuda_12_4_by_minor_version_compatibility(small: Matrix) -> None:
    verdict = driver_supports_cuda(small, "525.60.13", "12.4")
    assert verdict.ok
    assert verdict.tier is Tier.MINOR_VERSION
    assert verdict.required == "550.54.14"
    assert "minor-version compatibility" in verdict.reason
    assert "PTX" in verdict.reason  # the limit of minor-version compatibility is named


def test_535_runs_12_2_natively_and_12_8_by_minor_compat(small: Matrix) -> None:
    assert driver_supports_cuda(small, "535.104.05", "12.2").tier is Tier.NATIVE
    assert driver_supports_cuda(small, "535.104.05", "12.8").tier is Tier.MINOR_VERSION


def test_newer_driver_runs_older_cuda(small: Matrix) -> None:
    verdict = driver_supports_cuda(small, "570.124.06", "11.8")
    assert verdict.ok
    assert verdict.tier is Tier.NATIVE


@pytest.mark.parametrize("driver", ["450.80.02", "470.57.02", "520.61.05", "525.60.12"])
def test_drivers_below_the_12x_floor_cannot_run_12x(small: Matrix, driver: str) -> None:
    verdict = driver_supports_cuda(small, driver, "12.1")
    assert not verdict.ok
    assert verdict.tier is Tier.NO
    assert "525.60.13" in verdict.reason
    assert "530.30.02" in verdict.reason  # 12.1's own minimum: the upgrade target
    # forward compatibility is named as the way out, but never counted as ok
    assert "forward compatibility (cuda-compat-12-1)" in verdict.reason
    assert "data-center" in verdict.reason


def test_470_runs_11_8_by_minor_compat_but_450_51_does_not(small: Matrix) -> None:
    assert driver_supports_cuda(small, "470.57.02", "11.8").tier is Tier.MINOR_VERSION
    verdict = driver_supports_cuda(small, "450.51.05", "11.8")
    assert not verdict.ok
    assert "450.80.02" in verdict.reason
    assert "cuda-compat-11-8" in verdict.reason


def test_cuda_13_on_a_570_driver_is_refused(small: Matrix) -> None:
    verdict = driver_supports_cuda(small, "570.124.06", "13.0")
    assert not verdict.ok
    assert verdict.floor == "580.65.06"
    assert "cuda-compat-13-0" in verdict.reason


def test_cuda_unknown_to_the_matrix(small: Matrix) -> None:
    verdict = driver_supports_cuda(small, "550.54.15", "10.2")
    assert not verdict.ok
    assert "not in the matrix" in verdict.reason


def test_bad_driver_string_is_a_usage_error(small: Matrix) -> None:
    with pytest.raises(BadValue, match="driver version 'latest' is not a version"):
        driver_supports_cuda(small, "latest", "12.4")


def test_newest_cuda_for_driver_uses_the_per_release_rule(small: Matrix) -> None:
    assert newest_cuda_for_driver(small, "550.54.15").version == "12.4.1"  # type: ignore[union-attr]
    assert newest_cuda_for_driver(small, "550.54.14").version == "12.4.0"  # type: ignore[union-attr]
    assert newest_cuda_for_driver(small, "535.104.05").version == "12.2.2"  # type: ignore[union-attr]
    assert newest_cuda_for_driver(small, "580.65.06").version == "13.0.0"  # type: ignore[union-attr]
    assert newest_cuda_for_driver(small, "470.57.02") is None  # below every release in the matrix


def test_architecture_for(small: Matrix) -> None:
    assert architecture_for(small, "8.6").name == "Ampere"  # type: ignore[union-attr]
    assert architecture_for(small, "sm_90").name == "Hopper"  # type: ignore[union-attr]
    assert architecture_for(small, "12.0").sm == "sm_120"  # type: ignore[union-attr]
    assert architecture_for(small, "7.5") is None


@pytest.mark.parametrize(
    ("arch_list", "cc", "how"),
    [
        (["8.0"], "8.0", "native"),
        (["8.0"], "8.6", "binary-compatible"),  # same major, higher minor
        (["8.0"], "8.9", "binary-compatible"),
        (["7.0", "8.6"], "8.9", "binary-compatible"),
        (["8.0", "9.0+PTX"], "10.0", "ptx-jit"),  # PTX JIT on a newer major
        (["8.0", "9.0+PTX"], "12.0", "ptx-jit"),
        (["8.0", "9.0+PTX"], "9.0", "native"),
        (["9.0a"], "9.0", "native"),  # arch-specific runs on exactly its arch
        (["10.0f"], "10.3", "binary-compatible"),  # family cubins run on later family members
        (["sm_80", "sm_90"], "8.6", "binary-compatible"),  # torch.cuda.get_arch_list() names
        (["sm_80", "compute_90"], "12.0", "ptx-jit"),
        (["sm_120"], "12.0", "native"),
    ],
)
def test_arch_list_covers(arch_list: list[str], cc: str, how: str) -> None:
    verdict = arch_list_covers(arch_list, cc)
    assert verdict.ok, verdict.reason
    assert verdict.how == how


@pytest.mark.parametrize(
    ("arch_list", "cc"),
    [
        (["8.0", "9.0"], "10.0"),  # no PTX: cubins do not cross majors
        (["8.6"], "8.0"),  # a cubin does not run on a lower minor
        (["8.0", "9.0"], "7.5"),
        (["9.0a"], "9.1"),  # arch-specific: not even the same major's later minors
        (["9.0a+PTX"], "10.0"),  # arch-specific PTX is not forward compatible
        (["10.0f+PTX"], "12.0"),  # nor is family PTX beyond the family
        (["sm_90"], "12.0"),
        (["compute_90"], "8.6"),  # PTX only JITs upwards
        (["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"], "12.0"),  # torch cu124 on RTX 5090
    ],
)
def test_arch_list_does_not_cover(arch_list: list[str], cc: str) -> None:
    verdict = arch_list_covers(arch_list, cc)
    assert not verdict.ok
    assert verdict.how is None
    assert f"no kernels for {cc}" in verdict.reason


def test_empty_arch_list_cannot_be_judged() -> None:
    verdict = arch_list_covers([], "8.6")
    assert not verdict.ok
    assert "no compiled architectures known" in verdict.reason


def test_malformed_arch_entries_are_usage_errors() -> None:
    with pytest.raises(BadValue, match="arch list entry 'ampere'"):
        arch_list_covers(["ampere"], "8.6")
    with pytest.raises(BadValue, match="compute capability 'eight'"):
        arch_list_covers(["8.6"], "eight")


def test_release_lookups_by_installed_version(small: Matrix) -> None:
    release = pytorch_release_for(small, "2.5.1+cu124")
    assert release is not None
    assert release.version == "2.5.1"
    assert pytorch_release_for(small, "2.5.0a0+gitabcdef").version == "2.5.1"  # type: ignore[union-attr]
    assert pytorch_release_for(small, "2.3.0") is None
    assert pytorch_variant_for(release, "12.4").tag == "cu124"  # type: ignore[union-attr]
    assert pytorch_variant_for(release, "12.4.1").tag == "cu124"  # type: ignore[union-attr]
    assert pytorch_variant_for(release, "cu118").cuda == "11.8"  # type: ignore[union-attr]
    assert pytorch_variant_for(release, "12.6") is None
    assert tensorflow_release_for(small, "2.15.1").version == "2.15.0"  # type: ignore[union-attr]
    assert tensorflow_release_for(small, "2.16.0") is None


@pytest.mark.parametrize(
    ("gpu", "row"),
    [
        ("NVIDIA A100-SXM4-80GB", "A100"),
        ("NVIDIA A100 80GB PCIe", "A100"),
        ("NVIDIA H100 80GB HBM3", "H100"),
        ("NVIDIA GH200 480GB", "GH200"),  # not H100's row, not a substring match
        ("NVIDIA GeForce RTX 4090", None),
        ("NVIDIA A10", None),  # not A100
    ],
)
def test_mig_gpu_for_matches_whole_words(small: Matrix, gpu: str, row: str | None) -> None:
    found = mig_gpu_for(small, gpu)
    assert (found.name if found else None) == row
