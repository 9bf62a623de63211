"""Text and JSON presentation for `gpudoctor matrix`: aligned tables, stable JSON.

Presentation only: every fact comes from the loaded Matrix or from resolve().
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Optional

from gpudoctor import framework_names
from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.matrix.model import Matrix, PytorchRelease

FRAMEWORKS = framework_names.MATRIX
UNVERIFIED = "?"
LEGEND = f"{UNVERIFIED} = verified = false: resolve skips it unless --allow-unverified"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> str:
    """Left-aligned columns; the last column is not padded (no trailing spaces)."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(c).ljust(w) for c, w in zip(row, widths)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def fields(pairs: Sequence[tuple[str, str]], indent: str = "  ") -> str:
    """`key   value` lines, keys padded to one width; an empty key continues the one above."""
    width = max((len(k) for k, _ in pairs), default=0)
    return "\n".join(f"{indent}{k.ljust(width)}  {v}".rstrip() for k, v in pairs)


def _mark(verified: bool) -> str:
    return "" if verified else UNVERIFIED


def _span(values: Sequence[str]) -> str:
    return values[0] if len(values) == 1 else f"{values[0]}-{values[-1]}"


def list_text(matrix: Matrix, framework: Optional[str]) -> str:
    if framework == "pytorch":
        parts = [_pytorch_builds(matrix)]
    elif framework == "tensorflow":
        parts = [_tensorflow(matrix)]
    else:
        parts = [
            f"matrix {matrix.path} (schema_version {matrix.schema_version})",
            _cuda(matrix),
            _cuda_majors(matrix),
            _architectures(matrix),
            _pytorch(matrix),
            _tensorflow(matrix),
            _base_images(matrix),
            _mig(matrix),
            _distros(matrix),
            _driver_branches(matrix),
        ]
    return "\n\n".join([*parts, LEGEND])


def _cuda(matrix: Matrix) -> str:
    rows = [
        (
            r.version + _mark(r.verified),
            r.label,
            r.min_driver_linux or "-",
            r.min_driver_windows or "-",
        )
        for r in matrix.cuda
    ]
    head = ("version", "label", "min driver Linux", "Windows")
    return f"CUDA releases ({len(rows)})\n" + table(head, rows)


def _cuda_majors(matrix: Matrix) -> str:
    rows = [
        (
            str(m.major) + _mark(m.verified),
            m.minor_compat_min_driver_linux,
            m.minor_compat_min_driver_windows or "-",
            m.forward_compat_package or "-",
            ", ".join(m.dropped_compute_capabilities) or "-",
        )
        for m in matrix.cuda_majors
    ]
    head = ("major", "minor-compat driver Linux", "Windows", "forward compat", "dropped")
    return f"CUDA majors ({len(rows)})\n" + table(head, rows)


def _architectures(matrix: Matrix) -> str:
    rows = [
        (
            a.compute_capability + _mark(a.verified),
            a.name,
            a.sm,
            a.min_cuda,
            a.max_cuda or "-",
            ", ".join((*a.datacenter_gpus, *a.consumer_gpus)) or "-",
        )
        for a in matrix.architectures
    ]
    head = ("cc", "name", "sm", "min CUDA", "max CUDA", "GPUs")
    return f"GPU architectures ({len(rows)})\n" + table(head, rows)


def _pytorch(matrix: Matrix) -> str:
    rows = [
        (
            r.version + _mark(r.verified),
            _span(r.python),
            ", ".join(v.cuda + _mark(v.verified) for v in r.variants),
            r.torchvision,
            r.torchaudio or "-",
        )
        for r in matrix.pytorch
    ]
    head = ("version", "python", "CUDA variants", "torchvision", "torchaudio")
    return f"PyTorch releases ({len(rows)})\n" + table(head, rows)


def _pytorch_builds(matrix: Matrix) -> str:
    rows = [
        (
            r.version + _mark(r.verified),
            v.cuda + _mark(v.verified),
            v.tag,
            _span(r.python),
            v.cudnn or "-",
            " ".join(v.arch_list) or "-",
        )
        for r in matrix.pytorch
        for v in r.variants
    ]
    head = ("version", "CUDA", "tag", "python", "cuDNN", "arch list")
    return f"PyTorch builds ({len(rows)})\n" + table(head, rows)


def _tensorflow(matrix: Matrix) -> str:
    rows = [
        (r.version + _mark(r.verified), _span(r.python), r.cuda, r.cudnn, r.pip)
        for r in matrix.tensorflow
    ]
    head = ("version", "python", "CUDA", "cuDNN", "pip")
    return f"TensorFlow releases ({len(rows)})\n" + table(head, rows)


def _base_images(matrix: Matrix) -> str:
    rows = [
        (
            b.cuda + _mark(b.verified),
            b.repository,
            ", ".join(b.flavors),
            ", ".join(b.distros),
            f"{b.cudnn_tag} ({b.cudnn or '?'})" if b.cudnn_tag else "-",
        )
        for b in matrix.base_images
    ]
    head = ("CUDA", "repository", "flavors", "distros", "cuDNN images")
    return f"Base images ({len(rows)})\n" + table(head, rows)


def _mig(matrix: Matrix) -> str:
    rows = [
        (m.name + _mark(m.verified), m.compute_capability, str(m.max_instances), m.min_driver_linux)
        for m in matrix.mig_gpus
    ]
    head = ("GPU", "cc", "max instances", "min driver Linux")
    return f"MIG GPUs ({len(rows)})\n" + table(head, rows)


def _distros(matrix: Matrix) -> str:
    rows = [
        (d.name + _mark(d.verified), d.package_manager, ", ".join(d.pythons))
        for d in matrix.distros
    ]
    head = ("distro", "packages", "Pythons")
    return f"Distributions ({len(rows)})\n" + table(head, rows)


def _driver_branches(matrix: Matrix) -> str:
    rows = [
        (
            f"R{b.branch}" + _mark(b.verified),
            b.designation,
            b.end_of_life or "-",
            f"CUDA {b.max_cuda_major}" if b.max_cuda_major else "-",
            ", ".join(b.last_for) or "-",
        )
        for b in matrix.driver_branches
    ]
    head = ("branch", "designation", "end of life", "newest CUDA", "last branch for")
    return f"Driver branches ({len(rows)})\n" + table(head, rows)


def _plain(obj: object) -> object:
    """A dataclass as JSON-ready data (tuples become lists; digests become an object)."""
    data = dataclasses.asdict(obj)  # type: ignore[call-overload]
    if "digests" in data:
        data["digests"] = dict(data["digests"])
    return data


def _pytorch_json(release: PytorchRelease) -> dict[str, object]:
    data = _plain(release)
    assert isinstance(data, dict)
    data["cuda"] = [v.cuda for v in release.variants]
    data["cudnn"] = {v.cuda: v.cudnn for v in release.variants}
    return data


def list_json(matrix: Matrix, framework: Optional[str]) -> str:
    data: dict[str, object] = {
        "schema_version": matrix.schema_version,
        "matrix": str(matrix.path),
    }
    if framework is None:
        data["cuda"] = [_plain(r) for r in matrix.cuda]
        data["cuda_majors"] = [_plain(r) for r in matrix.cuda_majors]
        data["architectures"] = [_plain(r) for r in matrix.architectures]
    if framework in (None, "pytorch"):
        data["pytorch"] = [_pytorch_json(r) for r in matrix.pytorch]
    if framework in (None, "tensorflow"):
        data["tensorflow"] = [_plain(r) for r in matrix.tensorflow]
    if framework is None:
        data["base_images"] = [_plain(r) for r in matrix.base_images]
        data["mig_gpus"] = [_plain(r) for r in matrix.mig_gpus]
        data["distros"] = [_plain(r) for r in matrix.distros]
        data["driver_branches"] = [_plain(r) for r in matrix.driver_branches]
    return json.dumps(data, indent=2)


def validate_line(matrix: Matrix) -> str:
    variants = sum(len(r.variants) for r in matrix.pytorch)
    unverified = sum(
        not row.verified
        for rows in (
            matrix.cuda,
            matrix.cuda_majors,
            matrix.architectures,
            matrix.pytorch,
            [v for r in matrix.pytorch for v in r.variants],
            matrix.tensorflow,
            matrix.base_images,
            matrix.mig_gpus,
            matrix.distros,
            matrix.driver_branches,
        )
        for row in rows
    )
    return (
        f"ok: {matrix.path}: schema_version {matrix.schema_version}; "
        f"{len(matrix.cuda)} CUDA releases, {len(matrix.cuda_majors)} CUDA majors, "
        f"{len(matrix.architectures)} architectures, {len(matrix.pytorch)} PyTorch releases "
        f"({variants} CUDA variants), {len(matrix.tensorflow)} TensorFlow releases, "
        f"{len(matrix.base_images)} base images, {len(matrix.mig_gpus)} MIG GPUs, "
        f"{len(matrix.distros)} distributions, {len(matrix.driver_branches)} driver branches; "
        f"rows marked verified = false: {unverified}"
    )


def resolve(matrix: Matrix, request: ResolveRequest, fmt: str) -> str:
    from gpudoctor.compat.resolve import resolve as _resolve

    row = _resolve(matrix, request)
    return row_json(row) if fmt == "json" else row_text(row)


def row_json(row: ResolvedRow) -> str:
    return json.dumps(_plain(row), indent=2)


def row_text(row: ResolvedRow, verified: bool = True) -> str:
    from gpudoctor.compat.install import command, unread_clause

    pairs = [
        ("framework", f"{row.framework} {row.version} (CUDA {row.cuda}, cuDNN {row.cudnn or '-'})"),
        ("python", row.python),
        ("base image", row.base_image),
        ("platform", row.platform),
        ("digest", row.base_digest or "- (not pinned in the matrix)"),
        ("CUDA libraries", _cuda_libraries(row)),
        ("min driver", _min_driver(row)),
        *(
            (("on the target", f"{row.tier}: {row.tier_note}" if row.tier_note else row.tier),)
            if row.tier
            else ()
        ),
        ("starts with", f"NVIDIA_REQUIRE_CUDA {row.require_cuda}"),
        ("install", command(row.requirements, row.index_url)),
        *(
            (("not read", unread_clause(row.unread).strip(" ()") + "; build verifies them"),)
            if row.unread
            else ()
        ),
        ("arch list", " ".join(row.arch_list) or "- (not in the matrix)"),
        *((("verified", f"no ({LEGEND})"),) if not verified else ()),
        *(("warning", w) for w in row.warnings),
        *(("source" if i == 0 else "", s) for i, s in enumerate(row.sources)),
    ]
    return row.id + "\n" + fields(pairs)


def _cuda_libraries(row: ResolvedRow) -> str:
    if row.cuda_release is None:
        return "from the framework's pip wheels (plain distribution base)"
    where = "the base image" if row.cuda_from == "system" else "the pip wheels"
    return f"from {where} (base CUDA {row.cuda_release})"


def _min_driver(row: ResolvedRow) -> str:
    native = row.native_driver_linux
    if native and native != row.min_driver_linux:
        return (
            f"{row.min_driver_linux} (Linux; minor-version compatibility), {native} for "
            f"native CUDA {row.cuda}"
        )
    return f"{row.min_driver_linux} (Linux)"
