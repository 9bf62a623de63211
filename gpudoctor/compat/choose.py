"""What should this host run: the preference order every consumer shares.

"What runs here" is the newest framework release with a build that runs on every GPU of the
host, minor-version compatibility counting as running (PyTorch documents its cu12x wheels for
Linux drivers >= 525.60.13; uv's `--torch-backend=auto` uses the same floors). Between builds of
the same release, one the driver runs natively is preferred, then the newest CUDA. With
`native_only`, minor-version builds do not count. Verified rows come before unverified ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

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
    from packaging.version import Version

    judged = [judge(matrix, host, b) for b in builds]
    good = [v for v in judged if counts(v, native_only=native_only)]
    rest = [v for v in judged if not counts(v, native_only=native_only)]
    good.sort(
        key=lambda v: (
            Version(v.build.version),
            v.native,
            tuple(int(p) for p in v.build.cuda.split(".")),
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
    allow_unverified: bool = True,
) -> Verdict | None:
    """The build this host should run: the first in `rank` order among verified builds, else
    (when allowed) among unverified ones. None when nothing runs."""
    candidates = matching(enumerate_builds(matrix, framework), version, cuda)
    tiers = [[b for b in candidates if b.verified]]
    if allow_unverified:
        tiers.append([b for b in candidates if not b.verified])
    for group in tiers:
        ranked = rank(matrix, host, group, native_only=native_only)
        if ranked and counts(ranked[0], native_only=native_only):
            return ranked[0]
    return None
