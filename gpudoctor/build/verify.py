"""Verify a built image against its matrix row: run the in-image probe, compare, report Findings.

What is compared (each one Finding): Python version, framework version, the CUDA and cuDNN the
framework was built with, each CUDA library present once, the io.gpudoctor.* and OCI labels;
with a GPU also `cuda.is_available()` and one small kernel. Without a GPU those two are `n/a`,
not failures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gpudoctor.build.engine import ImageEngine, ImageInfo
from gpudoctor.build.spec import VENV, VERIFY_PATH, ImageSpec
from gpudoctor.checks.model import Finding, Severity
from gpudoctor.errors import VerifyFailed

MARKER = "GPUDOCTOR-VERIFY "
RUN_TIMEOUT_S = 300.0
AREA = "image"


def run_probe(engine: ImageEngine, image: str, spec: ImageSpec, *, gpu: bool) -> dict[str, Any]:
    """Run verify_image.py in `image`; its JSON report, or VerifyFailed when there is none."""
    command = [f"{VENV}/bin/python", VERIFY_PATH, spec.row.framework]
    if gpu:
        command.append("--kernel")
    result = engine.run(image, command, gpus=gpu, timeout=RUN_TIMEOUT_S)
    by_hand = f"run it by hand: docker run --rm --entrypoint {command[0]} {image} {VERIFY_PATH}"
    for line in reversed(result.stdout.splitlines()):
        if line.startswith(MARKER):
            return _parse_report(line[len(MARKER) :], image, by_hand)
    tail = (result.stderr or result.stdout).strip().splitlines()[-10:]
    raise VerifyFailed(
        f"the verify script in {image} printed no report (exit {result.exit_code}): "
        + " | ".join(tail),
        hint=by_hand,
    )


def _parse_report(text: str, image: str, hint: str) -> dict[str, Any]:
    """The report line's JSON object; a truncated or garbled one fails the verification."""
    try:
        report = json.loads(text)
    except ValueError as exc:
        raise VerifyFailed(
            f"the verify report from {image} is not valid JSON ({exc.msg} at character "
            f"{exc.pos} of {len(text)}: truncated or garbled)"
            if isinstance(exc, json.JSONDecodeError)
            else f"the verify report from {image} is not valid JSON",
            hint=hint,
        ) from None
    if not isinstance(report, dict):
        raise VerifyFailed(
            f"the verify report from {image} is a JSON {type(report).__name__}, not an object",
            hint=hint,
        )
    return report


def _finding(
    code: str, ok: bool, title: str, detail: str, evidence: Mapping[str, object]
) -> Finding:
    return Finding(
        code=code,
        severity=Severity.OK if ok else Severity.ERROR,
        area=AREA,
        title=title,
        detail=detail,
        evidence=tuple(sorted((k, str(v)) for k, v in evidence.items())),
        fix="" if ok else "rebuild from the row's index (or fix the wheelhouse) and verify again",
    )


def _parts(version: str | None, count: int) -> tuple[str, ...]:
    return tuple((version or "").split(".")[:count])


def compare_report(report: Mapping[str, Any], spec: ImageSpec, *, gpu: bool) -> list[Finding]:
    """Pure: the probe's report against the row, one Finding per promise."""
    from packaging.version import InvalidVersion, Version

    row = spec.row
    findings = []
    py = str(report.get("python_version", ""))
    findings.append(
        _finding(
            "verify-python",
            _parts(py, 2) == _parts(row.python, 2),
            f"Python {py or 'missing'} (row: {row.python})",
            "" if _parts(py, 2) == _parts(row.python, 2) else "the image runs another Python",
            {"image": py, "row": row.python},
        )
    )
    errors = report.get("errors") or []
    errors = errors if isinstance(errors, list) else [errors]
    version = report.get("framework_version")
    try:
        same = version is not None and Version(str(version)).public == Version(row.version).public
    except InvalidVersion:
        same = False
    findings.append(
        _finding(
            "verify-framework-version",
            same,
            f"{row.framework} {version or 'not importable'} (row: {row.version})",
            "; ".join(str(e) for e in errors),
            {"image": version, "row": row.version},
        )
    )
    findings.append(_cuda_finding(report, spec))
    findings.append(_cudnn_finding(report, spec))
    findings.append(_cuda_once_finding(report))
    findings.extend(_gpu_findings(report, gpu))
    return findings


def _cuda_once_finding(report: Mapping[str, Any]) -> Finding:
    """Each CUDA library once: the same library in two folders (an nvidia/cuda base's
    /usr/local/cuda and the framework's nvidia-* wheels) wastes gigabytes, and which copy the
    loader takes depends on the search order."""
    duplicates = report.get("cuda_library_duplicates")
    if duplicates is None:
        return Finding("verify-cuda-once", Severity.NA, AREA, "CUDA libraries: not reported")
    found = sorted(duplicates)
    return _finding(
        "verify-cuda-once",
        not found,
        "each CUDA library once" if not found else f"CUDA libraries twice: {', '.join(found)}",
        "; ".join(f"{lib} in {' and '.join(duplicates[lib])}" for lib in found),
        {"duplicates": ", ".join(found) or "none"},
    )


def _cuda_finding(report: Mapping[str, Any], spec: ImageSpec) -> Finding:
    built = report.get("built_cuda")
    row = spec.row
    ok = built is not None and _parts(str(built), 2) == _parts(row.cuda, 2)
    if built is None:
        detail = (
            f"a CPU-only {row.framework} build: it was built without CUDA, but the row promises "
            f"CUDA {row.cuda}"
        )
    else:
        detail = "" if ok else f"built with CUDA {built}, the row promises {row.cuda}"
    return _finding(
        "verify-built-cuda",
        ok,
        f"built with CUDA {built or 'none (CPU-only)'} (row: {row.cuda})",
        detail,
        {"image": built, "row": row.cuda},
    )


def _cudnn_finding(report: Mapping[str, Any], spec: ImageSpec) -> Finding:
    built, promised = report.get("built_cudnn"), spec.row.cudnn
    if promised is None:
        return Finding("verify-built-cudnn", Severity.NA, AREA, "cuDNN: the row names none")
    # Compare as many components as both sides give: torch reports M.m.p, TF often only M.
    count = min(len(str(built).split(".")), len(promised.split("."))) if built else 0
    ok = built is not None and _parts(str(built), count) == _parts(promised, count)
    return _finding(
        "verify-built-cudnn",
        ok,
        f"built with cuDNN {built or 'none'} (row: {promised})",
        "" if ok else f"cuDNN {built or 'none'} in the image, the row promises {promised}",
        {"image": built, "row": promised},
    )


def _gpu_findings(report: Mapping[str, Any], gpu: bool) -> list[Finding]:
    if not gpu:
        return [
            Finding(
                "verify-cuda-available",
                Severity.NA,
                AREA,
                "CUDA at run time: not checked (verify ran without a GPU)",
                detail="on a host with a GPU and the NVIDIA runtime, build verifies with --gpus",
                evidence=(("cuda_available", str(report.get("cuda_available"))),),
            )
        ]
    available = bool(report.get("cuda_available"))
    count = report.get("device_count", 0)
    result, expected = report.get("kernel_result"), report.get("kernel_expected")
    return [
        _finding(
            "verify-cuda-available",
            available,
            f"CUDA available in the container: {available} ({count} devices)",
            "" if available else "the framework sees no GPU through the NVIDIA runtime",
            {"cuda_available": available, "device_count": count},
        ),
        _finding(
            "verify-kernel",
            available and result is not None and result == expected,
            f"a small GPU kernel: {result} (expected {expected})",
            str(report.get("kernel_error") or ""),
            {"result": result, "expected": expected, "device": report.get("device_name")},
        ),
    ]


def compare_labels(info: ImageInfo, spec: ImageSpec) -> Finding:
    wrong = sorted(k for k, v in spec.labels if info.labels.get(k) != v)
    return _finding(
        "verify-labels",
        not wrong,
        "labels carry the resolved row" if not wrong else f"labels differ: {', '.join(wrong)}",
        "",
        {k: info.labels.get(k) for k in wrong},
    )


def verify_image(engine: ImageEngine, image: str, spec: ImageSpec, *, gpu: bool) -> list[Finding]:
    """Run the probe in `image` and compare it and the image's labels with the row.

    Raises:
        VerifyFailed: the image does not exist, or the probe printed no report.
    """
    info = engine.inspect(image)
    if info is None:
        raise VerifyFailed(f"image {image} not found", hint="build it first")
    report = run_probe(engine, image, spec, gpu=gpu)
    return [*compare_report(report, spec, gpu=gpu), compare_labels(info, spec)]


def raise_on_mismatch(findings: Sequence[Finding], image: str) -> None:
    """VerifyFailed naming every promise the image breaks."""
    bad = [f for f in findings if f.severity is Severity.ERROR]
    if bad:
        raise VerifyFailed(
            f"image {image} does not hold what its row promises: "
            + "; ".join(f"{f.title}{': ' + f.detail if f.detail else ''}" for f in bad),
            hint="check the index or wheelhouse the framework came from, then build again",
        )
