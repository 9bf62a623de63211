"""What should this host run: the preference order every consumer shares.

"What runs here" is the newest framework release with a build that runs on every GPU of the
host, minor-version compatibility counting as running (PyTorch documents its cu12x wheels for
Linux drivers >= 525.60.13; uv's `--torch-backend=auto` uses the same floors). Between builds of
the same release, one the driver runs natively is preferred, then the newest CUDA. With
`native_only`, minor-version builds do not count. Every build that exists (a primary source
says so: docs/matrix-format.md, "Provenance") is ranked by this one rule, whatever of it was
read from the wheel; a build whose existence is unsettled counts only with `allow_unsettled`
(`--allow-unverified`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.compat.builds import Build, enumerate_builds, matching
from gpudoctor.compat.tiers import Verdict, judge

if TYPE_CHECKING:
    from gpudoctor.compat.host import Host
    from gpudoctor.matrix.model import Matrix


def counts(verdict: Verdict, *, native_only: bool) -> bool:
    return verdict.native if native_only else verdict.runs


def rank(
    matrix: Matrix, host: Host, builds: Iterable[Build], *, native_only: bool = False
) -> list[Verdict]:
    """Every build judged, in preference order: those that run first (newest release; within a
    release native before minor-version, then newest CUDA), then the rest in their given order
    (newest first)."""
    judged = [judge(matrix, host, b) for b in builds]
    good = [v for v in judged if counts(v, native_only=native_only)]
    rest = [v for v in judged if not counts(v, native_only=native_only)]
    good.sort(
        key=lambda v: (
            versions.pep440(v.build.version),
            v.native,
            versions.numeric(v.build.cuda),
        ),
        reverse=True,
    )
    return good + rest


def pick(
    matrix: Matrix,
    host: Host,
    framework: str,
    *,
    version: str | None = None,
    cuda: str | None = None,
    native_only: bool = False,
    allow_unsettled: bool = False,
    judge_only: bool = False,
) -> Verdict | None:
    """The build this host should run: the first in `rank` order among the builds that exist
    (with `allow_unsettled`, among every build). Judge-only builds (torch 1.x) are never
    offered unless `judge_only` (a verdict on a release the user named). None when nothing
    runs."""
    candidates = [
        b
        for b in matching(enumerate_builds(matrix, framework), version, cuda)
        if judge_only or not b.judge_only
    ]
    for verdict in rank(matrix, host, candidates, native_only=native_only):
        if not counts(verdict, native_only=native_only):
            return None  # rank puts every build that runs first
        if verdict.exists or allow_unsettled:
            return verdict
    return None


def choices(
    matrix: Matrix, host: Host, framework: str, installed: str | None, *, native_only: bool = False
) -> list[tuple[str, Verdict]]:
    """At most two builds a report offers, both by `pick`, each labelled: the installed release
    in a variant that runs here (the smaller change), and the newest build that runs here
    (left out when it is the same build)."""
    out: list[tuple[str, Verdict]] = []
    if installed:
        release = versions.major_minor(installed)
        same = pick(matrix, host, framework, version=release, native_only=native_only)
        if same is not None:
            out.append((f"the installed {framework} {release} in a variant that runs here", same))
    best = pick(matrix, host, framework, native_only=native_only)
    if best is not None and all(v.build != best.build for _, v in out):
        out.append(("the newest build that runs here", best))
    return out
