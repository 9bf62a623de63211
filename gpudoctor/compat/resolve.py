"""Pick the newest known-good image row that meets every constraint of a ResolveRequest.

A candidate is a framework build from the compatibility model's enumerator (gpudoctor.compat)
on a base image. With a target host (`driver`, `compute_capabilities` or `host`), builds are
tried in the model's preference order (`compat.choose.rank`): the newest release that runs on
every GPU, minor-version compatibility counting as running unless `native_only`, native
preferred within a release. Without one, newest first (version, then CUDA). The first build that
meets every constraint wins. Base images (docs/matrix-format.md, "Choosing a row"):
- runtime flavor of a build whose CUDA comes with its wheels: the distribution's plain image
  ([[distro]].image), which holds no CUDA library, so each library is in the image once;
- devel flavor, and builds that load CUDA from the system: `nvidia/cuda`, the newest patch
  release of the build's CUDA major.minor with a [[base_image]] row;
- distro: the newest Ubuntu that packages a Python the release supports (then other distros
  in file order); python: the newest Python both the release supports and the distro packages.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor.compat.builds import Build, enumerate_builds
from gpudoctor.compat.candidates import FLAVORS, FRAMEWORKS, Specs, build_reasons, check_request
from gpudoctor.compat.choose import rank
from gpudoctor.compat.host import from_flags
from gpudoctor.compat.request import (
    Rejection,
    ResolvedRow,
    ResolveRequest,
    Unsettled,
    target_machine,
)
from gpudoctor.compat.requirement import start_requirement
from gpudoctor.compat.resolve_base import Choice, choose_base
from gpudoctor.compat.tiers import DriverTier, Tier
from gpudoctor.errors import NoMatchingRow
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.platforms import DOCKER_PLATFORM, available_on
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.compat.host import Host
    from gpudoctor.compat.tiers import Verdict

_NEAREST = 5


class Unresolvable(NoMatchingRow):
    """NoMatchingRow that keeps the rejected candidates, nearest first, for machine output."""

    def __init__(self, message: str, *, hint: str, rejections: tuple[Rejection, ...]) -> None:
        super().__init__(message, hint=hint)
        self.rejections = rejections


def target(request: ResolveRequest) -> Host | None:
    """The host the request targets, as the compatibility model sees it."""
    host = request.host
    if host is None and (request.driver or request.compute_capabilities):
        host = from_flags(request.driver, request.compute_capabilities)
    if host is not None and request.machine is not None:
        host = replace(host, machine=request.machine)  # --platform / --machine name it
    return host


def candidates(matrix: Matrix, request: ResolveRequest) -> list[tuple[Build, Verdict | None]]:
    """Builds in the order resolve tries them, each with its verdict on the target host."""
    builds = offered_builds(matrix, request.framework)
    host = target(request)
    if host is None:
        return [(b, None) for b in builds]
    return [(v.build, v) for v in rank(matrix, host, builds, native_only=request.native_only)]


def resolve(matrix: Matrix, request: ResolveRequest) -> ResolvedRow:
    """The newest row meeting every constraint; raises NoMatchingRow (Unresolvable) listing the
    nearest rejected rows and why, and UsageError for a malformed request."""
    specs = check_request(request)
    rejections: list[Rejection] = []
    for build, verdict in candidates(matrix, request):
        outcome = _evaluate(matrix, build, verdict, request, specs)
        if isinstance(outcome, ResolvedRow):
            return outcome
        rejections.append(outcome)
    raise _no_match(request, rejections)


def all_rows(matrix: Matrix) -> list[ResolvedRow]:
    """Every supported row, for `render --all`: each framework release x CUDA variant, with the
    newest Python it supports, the default distro, and both flavors; rows whose existence no
    primary source settles are left out.
    Order: framework (pytorch, tensorflow), newest version first, newest CUDA first, runtime
    before devel."""
    rows: list[ResolvedRow] = []
    for framework in FRAMEWORKS:
        for build in offered_builds(matrix, framework):
            for flavor in FLAVORS:
                request = ResolveRequest(framework=framework, flavor=flavor)
                outcome = _evaluate(matrix, build, None, request, check_request(request))
                if isinstance(outcome, ResolvedRow):
                    rows.append(outcome)
    return rows


def offered_builds(matrix: Matrix, framework: str) -> list[Build]:
    """The builds an image row may hold: judge-only releases (torch 1.0-1.12) are left out."""
    return [b for b in enumerate_builds(matrix, framework) if not b.judge_only]


def row_id(build: Build, python: str, distro: str, flavor: str) -> str:
    tag = "cu" + build.cuda.replace(".", "")
    return f"{build.framework}-{build.version}-{tag}-py{python}-{distro}-{flavor}"


def _host_reasons(verdict: Verdict | None, request: ResolveRequest) -> list[str]:
    if verdict is None:
        return []
    host = target(request)
    if host is not None and host.driver is None:
        # Only GPUs named (--compute-capability): the driver is no constraint.
        verdict = replace(verdict, driver=DriverTier(Tier.NATIVE, "no driver named"))
    if verdict.native or (verdict.runs and not request.native_only):
        return []
    if verdict.runs:
        return [
            f"runs by minor-version compatibility only (--native-only): {verdict.driver.reason}"
        ]
    return [f"CUDA {verdict.build.cuda}: {p}" for p in verdict.problems()]


def _evaluate(
    matrix: Matrix,
    build: Build,
    verdict: Verdict | None,
    request: ResolveRequest,
    specs: Specs,
) -> ResolvedRow | Rejection:
    reasons = build_reasons(matrix, build, request, specs) + _host_reasons(verdict, request)
    # With a host, judge already said whether it exists for the machine; not whether that was
    # read from the wheels.
    reasons += _machine_reasons(matrix, build, request, judged=verdict is not None)
    flavor = request.flavor or "runtime"
    choices = choose_base(matrix, build, request, specs)
    if not choices:
        reasons.append(f"no [[base_image]] for CUDA {build.cuda}")
        python = request.python or max(build.python, key=numeric)
        return _rejection(build, row_id(build, python, request.distro or "any", flavor), reasons)
    # The newest base without problems; else the one with the fewest (the nearest).
    best = min(choices, key=lambda c: len(c.reasons))
    candidate = row_id(build, best.python, best.distro, flavor)
    if reasons or best.reasons:
        return _rejection(build, candidate, [*reasons, *best.reasons])
    return _row(matrix, build, verdict, best, row_id=candidate, flavor=flavor, request=request)


def _rejection(build: Build, candidate: str, reasons: list[str]) -> Rejection:
    return Rejection(candidate, tuple(reasons), build.framework, build.version, build.cuda)


def _machine_reasons(
    matrix: Matrix, build: Build, request: ResolveRequest, *, judged: bool
) -> list[str]:
    where = available_on(
        matrix,
        build.framework,
        build.version,
        build.cuda,
        machine=target_machine(request),
        row_index_url=build.index_url,
    )
    if not where.ok:
        return [] if judged else [where.reason]
    if not where.exists and not request.allow_unverified:
        return [
            Unsettled(
                f"no primary source settles that the {where.reason} exists (use "
                "--allow-unverified to consider it)"
            )
        ]
    return []


def _row(
    matrix: Matrix,
    build: Build,
    verdict: Verdict | None,
    choice: Choice,
    *,
    row_id: str,
    flavor: str,
    request: ResolveRequest,
) -> ResolvedRow:
    machine = target_machine(request)
    where = available_on(
        matrix,
        build.framework,
        build.version,
        build.cuda,
        machine=machine,
        row_index_url=build.index_url,
    )

    rule = start_requirement(matrix, build)
    assert rule is not None  # build_reasons rejects a build whose CUDA the matrix lacks
    tier = verdict.tier.value if verdict is not None else None
    note = ""
    if verdict is not None and not verdict.native:
        note = verdict.driver.reason
    return ResolvedRow(
        id=row_id,
        framework=build.framework,
        version=build.version,
        cuda=build.cuda,
        cuda_release=choice.cuda_release,
        cudnn=build.cudnn,
        python=choice.python,
        min_driver_linux=rule.min_driver,
        base_image=choice.reference,
        base_digest=choice.digest,
        flavor=flavor,
        distro=choice.distro,
        requirements=build.requirements,
        index_url=where.index_url,
        arch_list=build.arch_list or (),
        sources=tuple(dict.fromkeys((*build.sources, *choice.sources))),
        cuda_from=build.cuda_from,
        native_driver_linux=rule.native_driver,
        require_cuda=rule.require_cuda,
        tier=tier,
        tier_note=note,
        warnings=choice.warnings,
        platform=DOCKER_PLATFORM[machine],
        unread=tuple(dict.fromkeys((*build.unread, *where.unread))),
        runtime=build.runtime,
        nccl=build.nccl,
    )


def describe_request(request: ResolveRequest) -> str:
    parts = [
        f"{flag} {value}"
        for flag, value in (
            ("--version", request.version),
            ("--cuda", request.cuda),
            ("--python", request.python),
            ("--driver", request.driver or (request.host.driver if request.host else None)),
            ("--flavor", request.flavor),
            ("--distro", request.distro),
            ("--machine", request.machine),
        )
        if value
    ]
    ccs = request.host.compute_capabilities if request.host else request.compute_capabilities
    parts.extend(f"--compute-capability {cc}" for cc in ccs)
    if request.native_only:
        parts.append("--native-only")
    return " ".join(parts) or "no constraints"


def _distance(rejection: Rejection) -> tuple[int, int]:
    """Hard reasons first; an unsettled row is one flag away (--allow-unverified)."""
    soft = rejection.unsettled
    return len(rejection.reasons) - soft, soft


def _rank_distance(wanted: str | None, values: list[str]) -> dict[str, int]:
    """Each value's distance from `wanted` in version order (0: the neighbours on either side),
    so "nearest" means nearest release, not newest. Specifiers rank nothing."""
    if not wanted or not re.fullmatch(r"\d+(\.\d+)*", wanted.strip()):
        return {}
    want = numeric(wanted.strip())
    ordered = sorted(set(values), key=numeric)
    below = [v for v in ordered if numeric(v)[: len(want)] < want][::-1]
    above = [v for v in ordered if numeric(v)[: len(want)] >= want]
    return {**{v: i for i, v in enumerate(below)}, **{v: i for i, v in enumerate(above)}}


def _by_closeness(request: ResolveRequest, rejections: list[Rejection]) -> list[Rejection]:
    versions = [r.version for r in rejections]
    cudas = [r.cuda for r in rejections]
    by_version = _rank_distance(request.version, [v for v in versions if v])
    by_cuda = _rank_distance(request.cuda, [c for c in cudas if c])
    order = sorted(
        range(len(rejections)),
        key=lambda i: (
            _distance(rejections[i]),
            by_version.get(versions[i], 0) + by_cuda.get(cudas[i], 0),
        ),
    )  # stable: newest first on ties
    return [rejections[i] for i in order]


def _no_match(request: ResolveRequest, rejections: list[Rejection]) -> Unresolvable:
    framework = request.framework
    if not rejections:
        return Unresolvable(
            f"the matrix has no {framework} rows",
            hint="use a matrix with [[" + framework + "]] rows (--matrix PATH)",
            rejections=(),
        )
    nearest = _by_closeness(request, rejections)
    lines = [f"  {r.candidate}: {'; '.join(r.reasons)}" for r in nearest[:_NEAREST]]
    return Unresolvable(
        f"no {framework} row matches {describe_request(request)}; nearest rows:\n"
        + "\n".join(lines),
        hint=f"relax a constraint; `gpudoctor matrix list --framework {framework}` shows every "
        "release",
        rejections=tuple(nearest),
    )
