"""A verified framework row names its evidence; an unverified row says what is unverified and why.

- A row marked `verified = false` must carry `notes` naming what could not be confirmed and why.
- Framework rows (`[[pytorch]]`, `[[pytorch.variants]]`, `[[tensorflow]]`) state facts that
  their released wheels carry (Python tags, METADATA pins, torch/version.py, the compiled
  architectures), so a verified one must name in `evidence` what was read from which artifact
  (`scripts/read_wheel.py` and `gpudoctor matrix update` print it), or, where no wheel can be
  read, the release branch file it was read from. Other tables' facts come from documents, which
  their `source` names.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.model import Matrix

_NEEDS_EVIDENCE = (
    "verified, but no 'evidence' says what was read from which artifact (run "
    "scripts/read_wheel.py or `gpudoctor matrix update`), or mark it verified = false with "
    "notes saying why it cannot be checked"
)
_NEEDS_REASON = "verified = false without 'notes' saying what is unverified and why"


def check_evidence(matrix: Matrix, problems: Problems) -> None:
    tables: Iterable[tuple[str, str, Iterable[object]]] = (
        ("cuda", "version", matrix.cuda),
        ("cuda_major", "major", matrix.cuda_majors),
        ("architecture", "compute_capability", matrix.architectures),
        ("tensorflow", "version", matrix.tensorflow),
        ("base_image", "cuda", matrix.base_images),
        ("mig_gpu", "name", matrix.mig_gpus),
        ("distro", "name", matrix.distros),
        ("driver_branch", "branch", matrix.driver_branches),
        ("rocm", "version", matrix.rocm),
        ("amd_gpu", "name", matrix.amd_gpus),
        ("cloud_instance", "family", matrix.cloud_instances),
    )
    for table, key, rows in tables:
        for index, row in enumerate(rows):
            _row(
                problems,
                f'[[{table}]] row {index + 1} ({key} "{getattr(row, key)}")',
                row,
                needs_evidence=table == "tensorflow",
            )
    for index, release in enumerate(matrix.pytorch):
        where = f'[[pytorch]] row {index + 1} (version "{release.version}")'
        _row(problems, where, release, needs_evidence=True)
        for vindex, variant in enumerate(release.variants):
            vwhere = f'{where} > [[pytorch.variants]] row {vindex + 1} (cuda "{variant.cuda}")'
            _row(problems, vwhere, variant, needs_evidence=True)
    for index, rocm in enumerate(matrix.pytorch_rocm):
        where = f'[[pytorch_rocm]] row {index + 1} (pytorch "{rocm.pytorch}")'
        _row(problems, where, rocm, needs_evidence=True)


def _row(problems: Problems, where: str, row: object, *, needs_evidence: bool) -> None:
    verified = bool(getattr(row, "verified", True))
    if not verified and not str(getattr(row, "notes", "")).strip():
        problems.add(where, _NEEDS_REASON)
    if verified and needs_evidence and not str(getattr(row, "evidence", "")).strip():
        problems.add(where, _NEEDS_EVIDENCE)
