"""resolve() and all_rows(): chosen rows, defaults, rejections, and bad requests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.compat.request import ResolveRequest
from gpudoctor.compat.resolve import Unresolvable, all_rows, resolve
from gpudoctor.errors import NoMatchingRow, UsageError
from gpudoctor.exitcodes import ExitCode
from gpudoctor.matrix.model import Matrix


def _id(matrix: Matrix, **kwargs: object) -> str:
    framework = str(kwargs.pop("framework", "pytorch"))
    return resolve(matrix, ResolveRequest(framework=framework, **kwargs)).id  # type: ignore[arg-type]


def test_default_pytorch_row_is_the_newest_verified_build(small: Matrix) -> None:
    row = resolve(small, ResolveRequest(framework="pytorch"))
    assert row.id == "pytorch-2.7.1-cu128-py3.12-ubuntu24.04-runtime"
    assert row.version == "2.7.1"
    assert row.cuda == "12.8"
    assert row.cuda_release is None  # the wheels bring CUDA: a plain distribution base
    assert row.cuda_from == "wheels"
    assert row.python == "3.12"  # newest Python both the release and ubuntu24.04 have
    assert row.flavor == "runtime"
    assert row.distro == "ubuntu24.04"
    assert row.base_image == "ubuntu:24.04"
    assert row.base_digest is None
    assert row.min_driver_linux == "525.60.13"  # the 12.x minor-version floor
    assert row.native_driver_linux == "570.124.06"
    assert row.require_cuda == "cuda>=12.1"  # the small matrix's first 12.x release
    assert row.requirements == ("torch==2.7.1", "torchvision==0.22.1", "torchaudio==2.7.1")
    assert row.index_url == "https://download.pytorch.org/whl/cu128"
    assert row.cudnn == "9.7.1.26"
    assert row.arch_list == ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0+PTX")
    assert row.sources[0] == "https://pytorch.org/get-started/previous-versions/"
    assert len(row.sources) == len(set(row.sources))


def test_bare_version_means_that_minor_and_digest_is_carried(small: Matrix) -> None:
    row = resolve(small, ResolveRequest(framework="pytorch", version="2.5", flavor="devel"))
    assert row.id == "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-devel"
    assert row.base_image == "nvidia/cuda:12.4.1-devel-ubuntu22.04"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"version": "==2.5.1", "cuda": "12.1"}, "pytorch-2.5.1-cu121-py3.11-ubuntu22.04-runtime"),
        (
            {"version": ">=2.4,<2.6", "python": "3.10"},
            "pytorch-2.5.1-cu124-py3.10-ubuntu22.04-runtime",
        ),
        ({"cuda": "11.8"}, "pytorch-2.7.1-cu118-py3.11-ubuntu22.04-runtime"),
        ({"cuda": "<12.5"}, "pytorch-2.7.1-cu118-py3.11-ubuntu22.04-runtime"),
        # newest framework version wins over newest CUDA: 2.7.1 cu118 runs on a 535 driver
        ({"driver": "535.104.05"}, "pytorch-2.7.1-cu118-py3.11-ubuntu22.04-runtime"),
        (
            {"driver": "535.104.05", "version": "2.5"},
            "pytorch-2.5.1-cu121-py3.11-ubuntu22.04-runtime",
        ),
        (
            {"flavor": "devel", "distro": "ubuntu22.04"},
            "pytorch-2.7.1-cu128-py3.11-ubuntu22.04-devel",
        ),
        ({"compute_capabilities": ("12.0",)}, "pytorch-2.7.1-cu128-py3.12-ubuntu24.04-runtime"),
        (
            {"compute_capabilities": ("3.7", "8.6")},
            "pytorch-2.7.1-cu118-py3.11-ubuntu22.04-runtime",
        ),
        (
            {"version": "2.6", "allow_unverified": True},
            "pytorch-2.6.0-cu124-py3.11-ubuntu22.04-runtime",
        ),
    ],
)
def test_constraints_choose_the_newest_matching_row(
    small: Matrix, kwargs: dict[str, object], expected: str
) -> None:
    assert _id(small, **kwargs) == expected


def test_driver_prefers_native_within_the_newest_release_that_runs(small: Matrix) -> None:
    # 560.28.03 runs 12.6 natively and 12.8 by minor-version compatibility: native wins
    row = resolve(small, ResolveRequest(framework="pytorch", driver="560.28.03"))
    assert row.id == "pytorch-2.7.1-cu126-py3.12-ubuntu24.04-runtime"
    assert row.tier == "native"
    # 525.60.13 runs no 12.x natively: the newest CUDA by minor-version compatibility
    minor = resolve(small, ResolveRequest(framework="pytorch", driver="525.60.13", cuda="12.4"))
    assert minor.id == "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    assert minor.tier == "minor-version"
    assert "PTX" in minor.tier_note
    native = ResolveRequest(framework="pytorch", driver="525.60.13", native_only=True)
    assert resolve(small, native).cuda == "11.8"
    # the devel base is the newest patch: NVIDIA_REQUIRE_CUDA is relaxed to the model's rule
    devel = resolve(small, ResolveRequest(framework="pytorch", driver="560.28.03", flavor="devel"))
    assert devel.cuda_release == "12.6.3"


def test_full_cuda_release_pins_the_base_image(small: Matrix) -> None:
    row = resolve(small, ResolveRequest(framework="pytorch", cuda="12.6.0", flavor="devel"))
    assert row.base_image == "nvidia/cuda:12.6.0-devel-ubuntu24.04"
    request = ResolveRequest(framework="pytorch", cuda="12.6.3", flavor="devel")
    assert resolve(small, request).cuda_release == "12.6.3"
    # a runtime image of a wheel build has no nvidia/cuda base: 12.6.0 means 12.6 there
    runtime = resolve(small, ResolveRequest(framework="pytorch", cuda="12.6.0"))
    assert (runtime.cuda, runtime.cuda_release) == ("12.6", None)


def test_distro_falls_back_to_an_older_patch_image_that_has_it(small: Matrix) -> None:
    request = ResolveRequest(framework="pytorch", cuda="12.6", distro="ubuntu20.04", flavor="devel")
    assert resolve(small, request).base_image == "nvidia/cuda:12.6.0-devel-ubuntu20.04"


def test_tensorflow_with_pip_cuda_uses_the_plain_image(small: Matrix) -> None:
    row = resolve(small, ResolveRequest(framework="tensorflow"))
    assert row.id == "tensorflow-2.15.0-cu122-py3.11-ubuntu22.04-runtime"
    assert row.base_image == "ubuntu:22.04"
    assert row.requirements == ("tensorflow[and-cuda]==2.15.0",)
    assert row.index_url is None
    assert row.arch_list == ()
    assert row.cudnn == "8.9"


def test_tensorflow_without_and_cuda_needs_the_cudnn_image(small: Matrix) -> None:
    row = resolve(small, ResolveRequest(framework="tensorflow", version="2.12"))
    assert row.base_image == "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"
    no_cudnn = replace(
        small,
        base_images=tuple(
            replace(i, cudnn_tag=None, cudnn=None) if i.cuda == "11.8.0" else i
            for i in small.base_images
        ),
    )
    with pytest.raises(NoMatchingRow, match=r"needs the system cuDNN 8\.6"):
        resolve(no_cudnn, ResolveRequest(framework="tensorflow", version="2.12"))


def test_tensorflow_gpu_check_uses_the_architecture_table(small: Matrix) -> None:
    assert _id(small, framework="tensorflow", compute_capabilities=("9.0",)).startswith(
        "tensorflow-2.15.0"
    )
    with pytest.raises(NoMatchingRow, match=r"CUDA 12\.2 predates compute capability 12\.0"):
        resolve(small, ResolveRequest(framework="tensorflow", compute_capabilities=("12.0",)))
    with pytest.raises(NoMatchingRow, match=r"compute capability 7\.5 is not in the matrix"):
        resolve(small, ResolveRequest(framework="tensorflow", compute_capabilities=("7.5",)))


def test_no_match_lists_nearest_rows_with_reasons(small: Matrix) -> None:
    request = ResolveRequest(framework="pytorch", version="2.5", driver="440.33.01")
    with pytest.raises(Unresolvable) as caught:
        resolve(small, request)
    error = caught.value
    assert error.exit_code == ExitCode.USAGE
    lines = error.message.splitlines()
    assert lines[0] == "no pytorch row matches --version 2.5 --driver 440.33.01; nearest rows:"
    # the three 2.5.1 builds fail only on the driver: they come first, newest CUDA first
    assert lines[1] == (
        "  pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime: CUDA 12.4: driver 440.33.01 is "
        "older than 525.60.13, the oldest that runs CUDA 12.4"
    )
    assert lines[3].startswith("  pytorch-2.5.1-cu118-")
    assert len(lines) == 1 + 5
    assert error.hint
    assert "gpudoctor matrix list --framework pytorch" in error.hint
    assert [len(r.reasons) for r in error.rejections] == sorted(
        len(r.reasons) for r in error.rejections
    )


def test_unverified_rows_are_near_and_say_how_to_allow_them(small: Matrix) -> None:
    with pytest.raises(NoMatchingRow) as caught:
        resolve(small, ResolveRequest(framework="pytorch", version="2.6"))
    assert (
        "pytorch-2.6.0-cu124-py3.11-ubuntu22.04-runtime: no primary source settles that this "
        "build exists"
    ) in str(caught.value)
    assert "--allow-unverified" in str(caught.value)
    nearest = caught.value.rejections[0]  # type: ignore[attr-defined]
    assert (nearest.version, nearest.cuda, nearest.unsettled) == ("2.6.0", "12.4", 1)


def test_python_and_gpu_reasons(small: Matrix) -> None:
    with pytest.raises(NoMatchingRow, match=r"supports Python 3\.9-3\.11, not 3\.13"):
        resolve(small, ResolveRequest(framework="tensorflow", python="3.13"))
    with pytest.raises(NoMatchingRow, match=r"no kernels for 12\.0"):
        resolve(
            small,
            ResolveRequest(framework="pytorch", version="2.5", compute_capabilities=("12.0",)),
        )


def test_missing_base_image_is_a_reason(small: Matrix) -> None:
    matrix = replace(small, base_images=tuple(i for i in small.base_images if i.cuda != "12.8.1"))
    assert _id(matrix, flavor="devel") == "pytorch-2.7.1-cu126-py3.12-ubuntu24.04-devel"
    with pytest.raises(NoMatchingRow, match=r"no \[\[base_image\]\] for CUDA 12\.8"):
        resolve(matrix, ResolveRequest(framework="pytorch", cuda="12.8", flavor="devel"))
    # the runtime image of a wheel build needs no nvidia/cuda base
    assert _id(matrix) == "pytorch-2.7.1-cu128-py3.12-ubuntu24.04-runtime"


def test_framework_without_rows(small: Matrix) -> None:
    with pytest.raises(NoMatchingRow, match="the matrix has no tensorflow rows"):
        resolve(replace(small, tensorflow=()), ResolveRequest(framework="tensorflow"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"framework": "jax"}, "unknown framework 'jax': gpudoctor knows pytorch, tensorflow"),
        ({"version": "two"}, "--version 'two' is not a version or a PEP 440 specifier"),
        ({"cuda": "12.x"}, "--cuda '12.x' is not a CUDA version, a wheel tag or a PEP 440 range"),
        ({"python": "3"}, "--python '3' is not like 3.11"),
        ({"flavor": "base"}, "--flavor 'base' is not one of: runtime, devel"),
        ({"driver": "latest"}, "--driver 'latest' is not a driver version"),
        ({"compute_capabilities": ("ampere",)}, "compute capability 'ampere' is not like 8.6"),
    ],
)
def test_bad_requests_are_usage_errors(
    small: Matrix, kwargs: dict[str, object], message: str
) -> None:
    request = ResolveRequest(**{"framework": "pytorch", **kwargs})  # type: ignore[arg-type]
    with pytest.raises(UsageError) as caught:
        resolve(small, request)
    assert message in caught.value.message
    assert caught.value.hint


def test_all_rows_every_verified_build_in_both_flavors(small: Matrix) -> None:
    rows = all_rows(small)
    ids = [r.id for r in rows]
    assert ids == [r.id for r in all_rows(small)]  # deterministic
    assert len(ids) == len(set(ids))
    assert ids[:4] == [
        "pytorch-2.7.1-cu128-py3.12-ubuntu24.04-runtime",
        "pytorch-2.7.1-cu128-py3.12-ubuntu24.04-devel",
        "pytorch-2.7.1-cu126-py3.12-ubuntu24.04-runtime",
        "pytorch-2.7.1-cu126-py3.12-ubuntu24.04-devel",
    ]
    assert ids[-1] == "tensorflow-2.12.0-cu118-py3.11-ubuntu22.04-devel"
    assert not any(i.startswith("pytorch-2.6.0") for i in ids)  # unverified
    # 6 verified PyTorch builds + 2 TensorFlow releases, runtime and devel each
    assert len(rows) == (6 + 2) * 2
    assert {r.flavor for r in rows} == {"runtime", "devel"}


def test_python_must_be_packaged_by_the_distro(small: Matrix) -> None:
    # ubuntu24.04 packages 3.12 only: asking for 3.11 moves the row to ubuntu22.04 ...
    row = resolve(small, ResolveRequest(framework="pytorch", python="3.11"))
    assert (row.python, row.distro) == ("3.11", "ubuntu22.04")
    # ... and a Python no distro of any image packages is rejected with the reason.
    with pytest.raises(NoMatchingRow, match=r"ubuntu24\.04 packages Python 3\.12, not 3\.13"):
        resolve(small, ResolveRequest(framework="pytorch", python="3.13"))
    with pytest.raises(NoMatchingRow, match=r"ubuntu22\.04 packages Python 3\.10-3\.11, not 3\.12"):
        resolve(small, ResolveRequest(framework="pytorch", python="3.12", distro="ubuntu22.04"))


def test_distro_without_a_row_is_a_reason(small: Matrix) -> None:
    no_distros = replace(small, distros=())
    with pytest.raises(NoMatchingRow, match=r"no \[\[distro\]\] row for ubuntu24\.04"):
        resolve(no_distros, ResolveRequest(framework="pytorch", flavor="devel"))
    with pytest.raises(NoMatchingRow, match=r"no \[\[distro\]\] has an image"):
        resolve(no_distros, ResolveRequest(framework="pytorch"))


def _end_of_life(matrix: Matrix, *releases: str) -> Matrix:
    images = tuple(
        replace(i, end_of_life=True) if i.cuda in releases else i for i in matrix.base_images
    )
    return replace(matrix, base_images=images)


def test_a_supported_point_release_is_preferred_over_an_end_of_life_one(small: Matrix) -> None:
    devel = ResolveRequest(framework="pytorch", cuda="12.6", flavor="devel")
    row = resolve(_end_of_life(small, "12.6.3"), devel)
    assert row.cuda_release == "12.6.0"
    assert row.warnings == ()
    newest = resolve(small, devel)
    assert newest.cuda_release == "12.6.3"  # with both supported, the newest point release


def test_a_chosen_end_of_life_image_carries_a_warning(small: Matrix) -> None:
    row = resolve(
        _end_of_life(small, "12.6.0", "12.6.3"),
        ResolveRequest(framework="pytorch", cuda="12.6", flavor="devel"),
    )
    assert row.cuda_release == "12.6.3"
    (warning,) = row.warnings
    assert "12.6.3 tags are end-of-life" in warning
