"""Matrix look-ups shared by the software and intent checks: the driver verdict (with the WSL
twist) and the exact pip command of a framework build this host can run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import live_gpus, version_tuple
from gpudoctor.matrix.platforms import pip_index_args

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix, PytorchRelease, PytorchVariant
    from gpudoctor.matrix.platforms import Availability
    from gpudoctor.matrix.queries import DriverVerdict


def public_version(version: str) -> str:
    """ "2.5.1+cu124" -> "2.5.1" (the version pip pins)."""
    return version.partition("+")[0]


def driver_verdict(facts: HostFacts, matrix: Matrix, driver: str, cuda: str) -> DriverVerdict:
    """queries.driver_supports_cuda, except where the driver's own CUDA version is the better
    witness: under WSL the version is the Windows driver's (Linux minimums do not apply), and
    for a CUDA the matrix does not list."""
    from gpudoctor.matrix.queries import DriverVerdict, driver_supports_cuda

    verdict = driver_supports_cuda(matrix, driver, cuda)
    own = version_tuple(facts.nvml.cuda_driver_version)
    wanted = version_tuple(cuda)
    unknown_to_matrix = verdict.required is None and verdict.floor is None
    if own is None or wanted is None or not (facts.platform.wsl or unknown_to_matrix):
        return verdict
    if wanted[:2] <= own[:2]:
        reason = f"the driver supports CUDA {facts.nvml.cuda_driver_version} >= {cuda}"
        return DriverVerdict(True, "release", verdict.required, verdict.floor, reason)
    if wanted[0] == own[0]:
        reason = (
            f"the driver supports CUDA {facts.nvml.cuda_driver_version}; {cuda} runs by "
            "minor-version compatibility (no PTX JIT of newer PTX)"
        )
        return DriverVerdict(True, "minor-compat", verdict.required, verdict.floor, reason)
    reason = f"the driver supports CUDA {facts.nvml.cuda_driver_version}, older than {cuda}"
    return DriverVerdict(False, None, verdict.required, verdict.floor, reason)


def torch_variant(matrix: Matrix, fw: FrameworkFacts) -> PytorchVariant | None:
    from gpudoctor.matrix.queries import pytorch_release_for, pytorch_variant_for

    release = pytorch_release_for(matrix, fw.version)
    if release is None or fw.cuda is None:
        return None
    return pytorch_variant_for(release, fw.cuda)


def _availability(
    facts: HostFacts, matrix: Matrix, release: PytorchRelease, variant: PytorchVariant
) -> Availability:
    from gpudoctor.matrix.platforms import available_on

    return available_on(
        matrix,
        "pytorch",
        release.version,
        variant.cuda,
        machine=facts.platform.machine,
        row_index_url=variant.index_url,
    )


def _runs_here(
    facts: HostFacts, matrix: Matrix, variant: PytorchVariant, driver: str | None
) -> bool:
    from gpudoctor.matrix.queries import arch_list_covers

    if driver is not None and not driver_verdict(facts, matrix, driver, variant.cuda).ok:
        return False
    ccs = [g.compute_capability for g in live_gpus(facts) if g.compute_capability]
    return all(arch_list_covers(variant.arch_list, cc).ok for cc in ccs)


def _best_variant(
    facts: HostFacts,
    matrix: Matrix,
    release: PytorchRelease,
    driver: str | None,
    *,
    verified_only: bool,
) -> tuple[PytorchVariant, Availability] | None:
    """The newest-CUDA variant of `release` this host runs, published for its machine."""
    fits = []
    for v in release.variants:
        if verified_only and not (release.verified and v.verified):
            continue
        where = _availability(facts, matrix, release, v)
        if (
            where.ok
            and (where.verified or not verified_only)
            and _runs_here(facts, matrix, v, driver)
        ):
            fits.append((v, where))
    return max(fits, key=lambda pair: version_tuple(pair[0].cuda) or (), default=None)


_UNVERIFIED_NOTE = " (its matrix row is marked verified = false)"


def torch_install_for_host(
    facts: HostFacts, matrix: Matrix, installed: str, driver: str | None
) -> str | None:
    """`pip install torch==X --index-url URL` for a build this driver runs with kernels for
    every GPU, in this order: the installed release (a verified variant, then an unverified
    one, which the command then says), else the newest other release (verified rows first, the
    ones `resolve` would pick too). None when nothing in the matrix fits."""
    from gpudoctor.matrix.queries import pytorch_release_for

    release = pytorch_release_for(matrix, installed)
    newest_first = sorted(
        matrix.pytorch, key=lambda r: version_tuple(r.version) or (), reverse=True
    )
    # Staying on the installed release is the smaller change, so it goes first.
    candidates = [(release, True), (release, False)] if release is not None else []
    candidates += [(other, True) for other in newest_first]
    candidates += [(other, False) for other in newest_first]
    for candidate, verified_only in candidates:
        assert candidate is not None
        best = _best_variant(facts, matrix, candidate, driver, verified_only=verified_only)
        if best is None:
            continue
        variant, where = best
        version = public_version(installed) if candidate is release else candidate.version
        verified = candidate.verified and variant.verified and where.verified
        note = "" if verified else _UNVERIFIED_NOTE
        return f"pip install torch=={version}{pip_index_args(where.index_url)}{note}"
    return None


def tensorflow_install_for_driver(facts: HostFacts, matrix: Matrix, driver: str) -> str | None:
    """`pip install 'tensorflow[and-cuda]==X'` for the newest release whose CUDA the driver runs,
    published with CUDA for this host's machine (none is on aarch64)."""
    from gpudoctor.matrix.platforms import available_on

    fits = [
        r
        for r in matrix.tensorflow
        if driver_verdict(facts, matrix, driver, r.cuda).ok
        and available_on(
            matrix,
            "tensorflow",
            r.version,
            r.cuda,
            machine=facts.platform.machine,
            row_index_url=None,
        ).ok
    ]
    verified = [r for r in fits if r.verified]
    best = max(verified or fits, key=lambda r: version_tuple(r.version) or (), default=None)
    if best is None:
        return None
    return f"pip install '{best.pip}'" + ("" if best.verified else _UNVERIFIED_NOTE)
