"""`gpudoctor matrix show`: one release (FRAMEWORK==VERSION) or one image row (ROW-ID)."""

from __future__ import annotations

import json
import re
from typing import Optional, Union

from gpudoctor import framework_names
from gpudoctor.cli.matrix_views import LEGEND, _plain, fields, row_json, row_text, table
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.errors import NoMatchingRow, UsageError
from gpudoctor.matrix.model import Matrix, PytorchRelease, TensorflowRelease

_FRAMEWORKS = "|".join(framework_names.MATRIX)
_ROW_ID = re.compile(
    f"(?P<framework>{_FRAMEWORKS})"
    r"-(?P<version>.+?)-cu(?P<cuda>\d{2,4})-py(?P<python>3\.\d+)"
    r"-(?P<distro>[a-z]+[0-9][0-9.]*)-(?P<flavor>runtime|devel)"
)


def show_release(matrix: Matrix, framework: str, version: str, fmt: str) -> str:
    from gpudoctor.matrix.queries import pytorch_release_for, tensorflow_release_for

    release: Optional[Union[PytorchRelease, TensorflowRelease]]
    if framework == "pytorch":
        release = pytorch_release_for(matrix, version)
    else:
        release = tensorflow_release_for(matrix, version)
    if release is None:
        raise UsageError(
            f"no {framework} release {version} in the matrix",
            hint=f"`gpudoctor matrix list --framework {framework}` lists the releases",
        )
    if fmt == "json":
        return json.dumps(_plain(release), indent=2)
    if isinstance(release, PytorchRelease):
        return _pytorch_text(release)
    return _tensorflow_text(release)


def _common(row: PytorchRelease | TensorflowRelease) -> list[tuple[str, str]]:
    pairs = [("verified", "yes" if row.verified else f"no ({LEGEND})")]
    if row.notes:
        pairs.append(("notes", row.notes))
    if row.evidence:
        pairs.append(("evidence", row.evidence))
    sources = dict.fromkeys((row.source, *row.sources))  # each page once, in file order
    pairs.extend(("source" if i == 0 else "", s) for i, s in enumerate(sources))
    return pairs


def _pytorch_text(release: PytorchRelease) -> str:
    pairs = [
        ("python", ", ".join(release.python)),
        ("torchvision", release.torchvision),
        ("torchaudio", release.torchaudio or "-"),
        ("PyPI default", f"CUDA {release.pypi_default_cuda}" if release.pypi_default_cuda else "-"),
        ("released", release.released or "-"),
        *_common(release),
    ]
    variants = table(
        ("CUDA", "tag", "cuDNN", "verified", "arch list", "index"),
        [
            (
                v.cuda,
                v.tag,
                v.cudnn or "-",
                "yes" if v.verified else "no",
                " ".join(v.arch_list) or "-",
                v.index_url,
            )
            for v in release.variants
        ],
    )
    notes = [f"  {v.cuda}: {v.notes}" for v in release.variants if v.notes]
    evidence = [f"  {v.cuda}: {v.evidence}" for v in release.variants if v.evidence]
    parts = [f"pytorch {release.version}", fields(pairs), "variants", variants]
    if notes:
        parts += ["variant notes", "\n".join(notes)]
    if evidence:
        parts += ["variant evidence", "\n".join(evidence)]
    return "\n".join(parts)


def _tensorflow_text(release: TensorflowRelease) -> str:
    pairs = [
        ("python", ", ".join(release.python)),
        ("CUDA", release.cuda),
        ("cuDNN", release.cudnn),
        ("pip", release.pip),
        *_common(release),
    ]
    return f"tensorflow {release.version}\n" + fields(pairs)


def show_row(matrix: Matrix, row_id: str, fmt: str) -> str:
    """Re-resolve the row an id names (its parts are the constraints) and show it."""
    from gpudoctor.compat.resolve import resolve

    match = _ROW_ID.fullmatch(row_id.strip())
    if match is None:
        raise UsageError(
            f"{row_id!r} is not a row id",
            hint="row ids look like pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime",
        )
    digits = match["cuda"]
    request = ResolveRequest(
        framework=match["framework"],
        version=f"=={match['version']}",
        cuda=f"{digits[:-1]}.{digits[-1]}",  # cu124 -> 12.4, cu118 -> 11.8, cu130 -> 13.0
        python=match["python"],
        distro=match["distro"],
        flavor=match["flavor"],
        allow_unverified=True,
    )
    try:
        row = resolve(matrix, request)
    except NoMatchingRow as exc:
        raise NoMatchingRow(
            f"no row {row_id} in the matrix:\n{exc.message.split(chr(10), 1)[-1]}",
            hint=f"`gpudoctor matrix list --framework {request.framework}` lists the releases",
        ) from None
    if row.id != row_id.strip():
        raise NoMatchingRow(f"no row {row_id} in the matrix (nearest: {row.id})")
    verified = _is_verified(matrix, request)
    return row_json(row) if fmt == "json" else row_text(row, verified)


def _is_verified(matrix: Matrix, request: ResolveRequest) -> bool:
    from dataclasses import replace

    from gpudoctor.compat.resolve import resolve

    try:
        resolve(matrix, replace(request, allow_unverified=False))
    except NoMatchingRow:
        return False
    return True


def show(matrix: Matrix, target: str, fmt: str) -> str:
    from gpudoctor.matrix import inputs

    if re.match(rf"\s*({_FRAMEWORKS})-", target):
        return show_row(matrix, target, fmt)
    # FRAMEWORK==VERSION: the shared parser words every mistake as the other commands do
    framework, version = inputs.parse_framework(target, option="matrix show")
    if version is None:
        raise UsageError(
            f"matrix show {target!r} names no version",
            hint=f"e.g. `gpudoctor matrix show {framework}==2.5`, or a row id like "
            "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime",
        )
    inputs.check_release(matrix, framework, version)
    return show_release(matrix, framework, version, fmt)
