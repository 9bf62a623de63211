"""The builds the selection rule must name on the shipped matrix (docs/matrix-format.md,
"Provenance"): every variant that a primary source says exists is ranked by one rule, whatever
of it was read from the wheel; a variant whose existence is unsettled stays out unless
`--allow-unverified`."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.compat.choose import pick
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.compat.resolve import Unresolvable, resolve
from gpudoctor.facts_json import load
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import default_matrix_path

HOSTS = Path(__file__).resolve().parents[1] / "data" / "hosts"


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix(default_matrix_path())


def _dry_run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert run(["build", "--framework", "pytorch", *args, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    _dry_run.err = err  # type: ignore[attr-defined]
    return out


def _row_id(dockerfile: str) -> str:
    found = re.search(r"from matrix row (\S+)\.", dockerfile)
    assert found is not None
    return found[1]


def test_cuda_12_1_builds_torch_2_5_1_cu121(capsys: pytest.CaptureFixture[str]) -> None:
    dockerfile = _dry_run(capsys, "--cuda", "12.1")
    assert _row_id(dockerfile).startswith("pytorch-2.5.1-cu121-")
    assert "--index-url https://download.pytorch.org/whl/cu121" in dockerfile
    # one short clause: what was not read from the wheel, and that build verifies it
    err = _dry_run.err  # type: ignore[attr-defined]
    assert "cuDNN pin, arch list not read from the wheel" in err
    assert "verifies them inside the image" in err


def test_a100_on_r535_gets_the_newest_torch_that_runs(
    shipped: Matrix, capsys: pytest.CaptureFixture[str]
) -> None:
    path = HOSTS / "a100-8x-r535.json"
    row = resolve(shipped, ResolveRequest(framework="pytorch", host=from_facts(load(path))))
    assert (row.version, row.cuda, row.tier) == ("2.14.1", "12.6", "minor-version")
    assert "cudnn" in row.unread  # the cu126 wheel was not read: build verifies it
    assert row.runtime == "cuda"  # the build, the verdict and the row carry their runtime
    best = pick(shipped, from_facts(load(path)), "pytorch")
    assert best is not None
    assert (best.runtime, best.build.runtime) == ("cuda", "cuda")
    assert _row_id(_dry_run(capsys, "--from", str(path))) == row.id


def test_gh200_on_r550_gets_an_arm64_image_of_the_newest_aarch64_cuda_build(
    shipped: Matrix, capsys: pytest.CaptureFixture[str]
) -> None:
    path = HOSTS / "gh200-torch-cpu-wheel.json"
    facts = load(path)
    assert facts.platform.machine == "aarch64"
    assert (facts.nvml.driver_version or "").startswith("550.")
    row = resolve(shipped, ResolveRequest(framework="pytorch", host=from_facts(facts)))
    # 13.x needs R580; the newest aarch64 CUDA 12 build a release matrix names is 2.14's cu126.
    assert (row.version, row.cuda, row.platform) == ("2.14.1", "12.6", "linux/arm64")
    assert row.index_url == "https://download.pytorch.org/whl/cu126"
    dockerfile = _dry_run(capsys, "--from", str(path))
    assert _row_id(dockerfile) == row.id
    assert 'io.gpudoctor.platform="linux/arm64"' in dockerfile


def _unsettle(matrix: Matrix, version: str, cuda: str) -> Matrix:
    """The matrix with one variant's existence unsettled (no `exists`, not verified)."""
    releases = tuple(
        replace(
            r,
            variants=tuple(
                replace(v, exists="", verified=False) if v.cuda == cuda else v for v in r.variants
            ),
        )
        if r.version == version
        else r
        for r in matrix.pytorch
    )
    return replace(matrix, pytorch=releases)


def test_an_unsettled_variant_stays_out_unless_allowed(shipped: Matrix) -> None:
    matrix = _unsettle(shipped, "2.5.1", "12.1")
    request = ResolveRequest(framework="pytorch", cuda="12.1", version="2.5")
    with pytest.raises(Unresolvable) as err:
        resolve(matrix, request)
    # typed: the nearest rejection is the one --allow-unverified lifts
    assert err.value.rejections[0].unsettled == 1
    assert err.value.rejections[0].version == "2.5.1"
    row = resolve(matrix, replace(request, allow_unverified=True))
    assert (row.version, row.cuda) == ("2.5.1", "12.1")
    host = from_facts(load(HOSTS / "driver-too-old.json"))  # R470: 11.8 builds only
    assert pick(matrix, host, "pytorch", version="2.5") is not None  # cu118 still exists
    gone = _unsettle(matrix, "2.5.1", "11.8")
    assert pick(gone, host, "pytorch", version="2.5") is None
    assert pick(gone, host, "pytorch", version="2.5", allow_unsettled=True) is not None


def test_selection_ranks_unread_variants_by_the_same_rule(shipped: Matrix) -> None:
    """No read-first pass: on R470 the newest release with an 11.8 build wins, read or not."""
    host = from_facts(load(HOSTS / "driver-too-old.json"))
    best = pick(shipped, host, "pytorch")
    assert best is not None
    assert best.build.cuda == "11.8"
    newer_118 = [r.version for r in shipped.pytorch if any(v.cuda == "11.8" for v in r.variants)]
    assert best.build.version == max(newer_118, key=lambda v: tuple(map(int, v.split("."))))
    assert best.unread  # and the output says what was not read


def test_a_cuda_release_without_its_own_floor_is_judged_by_the_13x_rule_only(
    shipped: Matrix,
) -> None:
    """13.4 (13.4.1) and 13.4 Update 1 (13.4.2) ship no Linux driver and their own floor is
    unsourced: the R580 floor of 13.x admits them by minor-version compatibility, never
    natively, and below it nothing runs them."""
    from gpudoctor.compat.host import from_flags
    from gpudoctor.compat.tiers import Tier, driver_tier

    for cuda in ("13.4", "13.4.2"):
        new = driver_tier(shipped, from_flags("620.10.01"), cuda)
        assert new.tier is Tier.MINOR_VERSION, (cuda, new)
        assert driver_tier(shipped, from_flags("570.124.06"), cuda).tier is Tier.NO
    assert driver_tier(shipped, from_flags("595.45.04"), "13.2.0").tier is Tier.NATIVE


def test_torch_1_x_rows_are_judged_but_never_offered(
    shipped: Matrix, capsys: pytest.CaptureFixture[str]
) -> None:
    """torch 1.0-1.12 are in the matrix for `check` (an installed 1.12 is judged against its
    release branch's arch list); resolve, build, render --all and pick never offer them."""
    from dataclasses import replace as _replace

    from gpudoctor.checks import Intent, run_checks
    from gpudoctor.compat.builds import enumerate_builds
    from gpudoctor.compat.resolve import all_rows
    from gpudoctor.facts import FrameworkFacts
    from gpudoctor.findings import Severity

    legacy = [b for b in enumerate_builds(shipped, "pytorch") if b.judge_only]
    # one row per minor release of the previous-versions page (it lists no 1.3)
    assert sorted({b.version for b in legacy}, key=lambda v: tuple(map(int, v.split(".")))) == [
        "1.0.1", "1.1.0", "1.2.0", "1.4.0", "1.5.1", "1.6.0", "1.7.1", "1.8.1", "1.9.1",
        "1.10.1", "1.11.0", "1.12.1",
    ]  # fmt: skip
    offered = {tuple(map(int, r.version.split(".")[:2])) for r in all_rows(shipped)}
    assert offered
    assert min(offered) >= (1, 13)  # render --all and images/ hold no judge-only release
    host = load(HOSTS / "p100-r470.json")  # Pascal on R470: 1.12.1 cu113 would run here
    assert pick(shipped, from_facts(host), "pytorch", version="1.12") is None
    assert pick(shipped, from_facts(host), "pytorch", version="1.12", judge_only=True) is not None
    with pytest.raises(Unresolvable):
        resolve(shipped, ResolveRequest(framework="pytorch", version="1.12"))
    assert run(["build", "--framework", "pytorch==1.12", "--dry-run"]) == 2
    # check judges an installed 1.12 with the release's arch list (sm_60 kernels for the P100)
    torch = FrameworkFacts(name="torch", version="1.12.1+cu113", cuda="11.3", cpu_only=False)
    facts = _replace(host, frameworks=(torch,))
    found = run_checks(facts, shipped, Intent(), only=frozenset({"framework-arch"})).findings
    assert [f.severity for f in found] == [Severity.OK], found
    assert "6.0" in found[0].title


@pytest.mark.parametrize(
    ("version", "cuda", "arch"),
    [
        ("1.10.2+cu102", "10.2", "ok"),  # release/1.10's build.sh: 3.7;5.0;6.0;7.0
        ("1.9.1+cu111", "11.1", "ok"),
        ("1.8.1+cu101", "10.1", "ok"),  # lts/release/1.8
        ("1.7.1+cu110", "11.0", "unknown"),  # no release branch: no arch list, not "none"
        ("1.4.0", "10.1", "unknown"),
        ("1.3.1", "10.1", "unknown"),  # no row at all (the page lists no 1.3)
    ],
)
def test_torch_before_1_11_is_judged_by_its_variant_and_an_unsourced_arch_list_stays_unknown(
    shipped: Matrix, version: str, cuda: str, arch: str
) -> None:
    """A Pascal host on R470 with an old torch: the driver rule judges the variant's CUDA,
    the kernel rule only where a release branch gives the arch list."""
    from dataclasses import replace as _replace

    from gpudoctor.checks import Intent, run_checks
    from gpudoctor.facts import FrameworkFacts

    host = load(HOSTS / "p100-r470.json")
    torch = FrameworkFacts(name="torch", version=version, cuda=cuda, cpu_only=False)
    facts = _replace(host, frameworks=(torch,))
    only = frozenset({"framework-arch", "framework-driver-cuda"})
    found = {f.code: f for f in run_checks(facts, shipped, Intent(), only=only).findings}
    assert found["framework-driver-cuda"].severity.value == "ok"  # R470 runs CUDA <= 11.4
    assert found["framework-arch"].severity.value == arch, found["framework-arch"]
