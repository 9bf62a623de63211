"""Rules across rows of a well-formed matrix: duplicates, consistency, and references between
tables (a PyTorch variant's CUDA needs a [[cuda]] row, whose minimum driver `resolve` uses).

Rows are counted from 1 in file order, as `fields.row_label` does for per-row problems.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from gpudoctor import versions
from gpudoctor.matrix.evidence import check_evidence
from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.model import Matrix, PytorchRelease, TensorflowRelease
from gpudoctor.versions import numeric

T = TypeVar("T")


def cross_check(matrix: Matrix, problems: Problems) -> None:
    _duplicates(problems, "cuda", matrix.cuda, lambda r: versions.canonical(r.version), "version")
    _duplicates(problems, "cuda_major", matrix.cuda_majors, lambda r: str(r.major), "major")
    _duplicates(
        problems,
        "architecture",
        matrix.architectures,
        lambda r: versions.canonical(r.compute_capability),
        "compute_capability",
    )
    _duplicates(
        problems,
        "pytorch",
        matrix.pytorch,
        lambda r: versions.major_minor(r.version) or r.version,
        "minor release",
    )
    _duplicates(
        problems,
        "tensorflow",
        matrix.tensorflow,
        lambda r: versions.major_minor(r.version) or r.version,
        "minor release",
    )
    _duplicates(
        problems,
        "base_image",
        matrix.base_images,
        lambda r: f"{r.repository}:{versions.canonical(r.cuda)}",
        "repository and cuda",
    )
    _driver_floors(matrix, problems)
    _duplicates(problems, "mig_gpu", matrix.mig_gpus, lambda r: r.name, "name")
    _duplicates(problems, "distro", matrix.distros, lambda r: r.name, "name")
    _duplicates(problems, "driver_branch", matrix.driver_branches, lambda r: r.branch, "branch")
    _duplicates(problems, "cloud_instance", matrix.cloud_instances, lambda r: r.family, "family")
    _instance_types(matrix, problems)
    _jetpack(matrix, problems)
    _duplicates(
        problems,
        "program",
        matrix.programs,
        lambda r: f"{r.name} {r.versions}",
        "name and versions",
    )
    _architectures(matrix, problems)
    for index, release in enumerate(matrix.pytorch):
        _pytorch(matrix, problems, index, release)
    for index, tf in enumerate(matrix.tensorflow):
        _tensorflow(matrix, problems, index, tf)
    _base_images(matrix, problems)
    check_evidence(matrix, problems)
    _wheels(matrix, problems)
    _rocm(matrix, problems)
    arch_ccs = {a.compute_capability for a in matrix.architectures}
    for index, mig in enumerate(matrix.mig_gpus):
        if mig.compute_capability not in arch_ccs:
            problems.add(
                _label("mig_gpu", index, "name", mig.name),
                f"key 'compute_capability': no [[architecture]] row has {mig.compute_capability}",
            )


def _jetpack(matrix: Matrix, problems: Problems) -> None:
    """One row per JetPack release, and an L4T release ships with one JetPack only (the checks
    read a Jetson's JetPack from its L4T)."""
    _duplicates(problems, "jetpack", matrix.jetpack, lambda r: r.version, "version")
    owner: dict[str, str] = {}
    for index, row in enumerate(matrix.jetpack):
        for l4t in row.l4t:
            key = versions.canonical(l4t).removesuffix(".0")
            if owner.setdefault(key, row.version) != row.version:
                problems.add(
                    _label("jetpack", index, "version", row.version),
                    f"key 'l4t': {l4t} is also JetPack {owner[key]}'s",
                )


def _rocm(matrix: Matrix, problems: Problems) -> None:
    """ROCm tables: one row per release series, per GPU name, per torch release and ROCm; a PCI
    id names one GPU model; a torch ROCm variant names a [[pytorch]] release."""
    _duplicates(problems, "rocm", matrix.rocm, lambda r: r.version, "version")
    _duplicates(problems, "amd_gpu", matrix.amd_gpus, lambda r: r.name, "name")
    _duplicates(
        problems,
        "pytorch_rocm",
        matrix.pytorch_rocm,
        lambda r: f"{r.pytorch}+{r.tag}",
        "pytorch and rocm",
    )
    owner: dict[str, str] = {}
    for index, gpu in enumerate(matrix.amd_gpus):
        for pci_id in gpu.pci_ids:
            if owner.setdefault(pci_id, gpu.name) != gpu.name:
                problems.add(
                    _label("amd_gpu", index, "name", gpu.name),
                    f"key 'pci_ids': {pci_id} is also {owner[pci_id]}'s",
                )
    releases = {r.version for r in matrix.pytorch}
    for index, variant in enumerate(matrix.pytorch_rocm):
        if variant.pytorch not in releases:
            problems.add(
                _label("pytorch_rocm", index, "pytorch", variant.pytorch),
                f"key 'pytorch': no [[pytorch]] row has version {variant.pytorch}",
            )


def _driver_floors(matrix: Matrix, problems: Problems) -> None:
    """A CUDA X.Y release (Y > 0) cannot need less driver than the X.x minor-version floor: that
    floor is the oldest driver any X.x release runs on beyond X.0. X.0 itself may be lower
    (NVIDIA's table: 11.0.2 needs 450.51.05, the 11.x floor is 450.80.02)."""
    floors = {m.major: m.minor_compat_min_driver_linux for m in matrix.cuda_majors}
    for index, release in enumerate(matrix.cuda):
        major, minor = numeric(release.version)[:2]
        floor = floors.get(major)
        if floor is None or minor == 0 or release.min_driver_linux is None:
            continue
        if numeric(release.min_driver_linux) < numeric(floor):
            problems.add(
                _label("cuda", index, "version", release.version),
                f"key 'min_driver_linux': {release.min_driver_linux} is below CUDA {major}.x's "
                f"minor-version floor {floor} ([[cuda_major]] minor_compat_min_driver_linux); "
                "one of the two is wrong",
            )


def _label(table: str, index: int, key: str, value: str) -> str:
    return f'[[{table}]] row {index + 1} ({key} "{value}")'


def _duplicates(
    problems: Problems,
    table: str,
    rows: Sequence[T],
    key: Callable[[T], str],
    what: str,
) -> None:
    first: dict[str, int] = {}
    for index, row in enumerate(rows):
        value = key(row)
        if value in first:
            problems.add(
                f"[[{table}]] row {index + 1}",
                f"duplicate {what} {value!r}: row {first[value] + 1} has it already "
                "(keep one row each; numbers are compared without leading zeros)",
            )
        else:
            first[value] = index


def _architectures(matrix: Matrix, problems: Problems) -> None:
    for index, arch in enumerate(matrix.architectures):
        where = _label("architecture", index, "compute_capability", arch.compute_capability)
        expected_sm = "sm_" + arch.compute_capability.replace(".", "")
        if arch.sm != expected_sm:
            problems.add(where, f"key 'sm': expected {expected_sm!r}, found {arch.sm!r}")
        if arch.max_cuda and numeric(arch.max_cuda) < numeric(arch.min_cuda):
            problems.add(
                where, f"key 'max_cuda': {arch.max_cuda} is older than min_cuda {arch.min_cuda}"
            )


def _cuda_minors(matrix: Matrix) -> set[str]:
    return {release.major_minor for release in matrix.cuda}


def _pytorch(matrix: Matrix, problems: Problems, index: int, release: PytorchRelease) -> None:
    where = _label("pytorch", index, "version", release.version)
    minors = _cuda_minors(matrix)
    _duplicates(
        _Prefixed(problems, where), "pytorch.variants", release.variants, lambda v: v.cuda, "cuda"
    )
    for vindex, variant in enumerate(release.variants):
        vwhere = f"{where} > {_label('pytorch.variants', vindex, 'cuda', variant.cuda)}"
        expected_tag = "cu" + variant.cuda.replace(".", "")
        if variant.tag != expected_tag:
            problems.add(vwhere, f"key 'tag': expected {expected_tag!r}, found {variant.tag!r}")
        if variant.cuda not in minors:
            problems.add(vwhere, _missing_cuda(variant.cuda))
    cudas = [v.cuda for v in release.variants]
    if release.pypi_default_cuda and release.pypi_default_cuda not in cudas:
        problems.add(
            where,
            f"key 'pypi_default_cuda': {release.pypi_default_cuda} is not one of the variants' "
            f"CUDA versions ({', '.join(cudas)})",
        )


def _missing_cuda(cuda: str) -> str:
    return (
        f"key 'cuda': no [[cuda]] row for CUDA {cuda}.x (add its release notes row: "
        "the minimum driver comes from it)"
    )


def _tensorflow(matrix: Matrix, problems: Problems, index: int, tf: TensorflowRelease) -> None:
    from packaging.requirements import Requirement

    where = _label("tensorflow", index, "version", tf.version)
    if tf.cuda not in _cuda_minors(matrix):
        problems.add(where, _missing_cuda(tf.cuda))
    requirement = Requirement(tf.pip)
    if not requirement.name.startswith("tensorflow") or not requirement.specifier.contains(
        versions.pep440(tf.version), prereleases=True
    ):
        problems.add(
            where, f"key 'pip': {tf.pip!r} does not pin tensorflow {tf.version} (use '==')"
        )


def _base_images(matrix: Matrix, problems: Problems) -> None:
    releases = {release.version for release in matrix.cuda}
    for index, image in enumerate(matrix.base_images):
        where = _label("base_image", index, "cuda", image.cuda)
        if image.cuda not in releases:
            problems.add(
                where,
                f"key 'cuda': no [[cuda]] row has version {image.cuda} "
                "(the image's minimum driver comes from it)",
            )
        for tag, _digest in image.digests:
            if not tag.startswith(f"{image.cuda}-"):
                problems.add(
                    where,
                    f"key 'digests': tag {tag!r} is not a {image.cuda} tag ('{image.cuda}-...')",
                )


class _Prefixed(Problems):
    """Problems whose `where` is prefixed by the enclosing row (variants inside a release)."""

    def __init__(self, inner: Problems, prefix: str) -> None:
        super().__init__(inner.file, inner.lines)
        self.prefix = prefix

    def add(self, where: str, text: str) -> None:
        super().add(f"{self.prefix} > {where}", text)


def _wheels(matrix: Matrix, problems: Problems) -> None:
    """A [[wheel]] row names a release of its framework; a PyTorch CUDA wheel names one of that
    release's variants (the build it is, on another machine); rows are not repeated."""
    _duplicates(
        problems,
        "wheel",
        matrix.wheels,
        lambda w: f"{w.framework} {w.version} {w.machine} {w.index} {w.cuda}",
        "framework, version, machine, index and cuda",
    )
    for index, wheel in enumerate(matrix.wheels):
        where = _label("wheel", index, "version", wheel.version)
        table = matrix.pytorch if wheel.framework == "pytorch" else matrix.tensorflow
        release = next((r for r in table if r.version == wheel.version), None)
        if release is None:
            problems.add(where, f"no [[{wheel.framework}]] row has version {wheel.version}")
        elif wheel.framework == "pytorch" and not wheel.cpu_only:
            cudas = [v.cuda for v in getattr(release, "variants", ())]
            if wheel.cuda not in cudas:
                problems.add(
                    where,
                    f"key 'cuda': {wheel.cuda} is not one of the release's variants "
                    f"({', '.join(cudas)})",
                )


def _instance_types(matrix: Matrix, problems: Problems) -> None:
    """An instance type names one family's GPUs: it is listed once, in one row."""
    owner: dict[str, str] = {}
    for index, row in enumerate(matrix.cloud_instances):
        for entry in row.instances:
            name = entry.rpartition("=")[0].lower()
            if name in owner:
                problems.add(
                    _label("cloud_instance", index, "family", row.family),
                    f"key 'instances': {name} is listed twice (also in {owner[name]})",
                )
            owner.setdefault(name, row.family)
