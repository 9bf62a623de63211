"""Verify a built image against its matrix row: run the in-image probe, compare, report Findings.

The probe (templates/verify_image.py) is not part of the image: it is passed to the image's
Python at verify time (`python -c SCRIPT FRAMEWORK [--kernel]`), so an image holds only what
its row promises and the probe can change without rebuilding any image.

What is compared (each one Finding): Python version, framework version, the CUDA and cuDNN the
framework was built with, each CUDA library present once, the io.gpudoctor.* and OCI labels;
with a GPU also `cuda.is_available()` and one small kernel. Without a GPU those two are `n/a`,
not failures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpudoctor import verify_report, versions
from gpudoctor.builder.spec import VENV, VERIFY_SCRIPT, ImageSpec
from gpudoctor.builder.verify_codes import CATALOGUE
from gpudoctor.docker.engine import ImageEngine, ImageInfo
from gpudoctor.errors import VerifyFailed
from gpudoctor.findings import Finding, Severity, make_finding
from gpudoctor.resources import templates_dir
from gpudoctor.safe_text import clean_finding

RUN_TIMEOUT_S = 300.0


def verify_script(template_dir: Path | None = None) -> tuple[Path, str]:
    """(path, text) of the probe; VerifyFailed when it cannot be read (a broken install)."""
    path = (template_dir or templates_dir()) / VERIFY_SCRIPT
    try:
        return path, path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VerifyFailed(
            f"verify script {path} unreadable: {exc.strerror or exc}", hint="reinstall gpudoctor"
        ) from None


def probe_command(script: str, framework: str, *, gpu: bool) -> list[str]:
    """The image's Python running the probe's source. Its working directory, the image user's
    empty home, is first on sys.path, where a script path would have put its own folder."""
    return [f"{VENV}/bin/python", "-c", script, framework, *(["--kernel"] if gpu else [])]


def run_probe(
    engine: ImageEngine,
    image: str,
    spec: ImageSpec,
    *,
    gpu: bool,
    template_dir: Path | None = None,
) -> dict[str, Any]:
    """Run the probe in `image`; its JSON report, or VerifyFailed when there is none."""
    path, script = verify_script(template_dir)
    command = probe_command(script, spec.row.framework, gpu=gpu)
    result = engine.run(image, command, gpus=gpu, timeout=RUN_TIMEOUT_S)
    by_hand = (
        f"run it by hand: docker run --rm -i --entrypoint {VENV}/bin/python {image} - "
        f"{spec.row.framework} < {path}"
    )
    report = verify_report.read(result.stdout)
    if report.data is not None:
        return report.data
    if report.found:
        raise VerifyFailed(f"the verify report from {image} is {report.problem}", hint=by_hand)
    tail = (result.stderr or result.stdout).strip().splitlines()[-10:]
    raise VerifyFailed(
        f"the verify script in {image} printed no report (exit {result.exit_code}): "
        + " | ".join(tail),
        hint=by_hand,
    )


def _finding(
    code: str, ok: bool, title: str, detail: str, evidence: Mapping[str, object]
) -> Finding:
    return _make(
        code,
        Severity.OK if ok else Severity.ERROR,
        title,
        detail=detail,
        evidence=[(k, str(v)) for k, v in evidence.items()],
        fix="" if ok else "rebuild from the row's index (or fix the wheelhouse) and verify again",
    )


def _make(
    code: str,
    severity: Severity,
    title: str,
    *,
    detail: str = "",
    fix: str = "",
    evidence: Sequence[tuple[str, str]] = (),
) -> Finding:
    """A finding of a verify code, through the builder's catalogue (verify_codes.py)."""
    return make_finding(CATALOGUE[code], severity, title, detail=detail, fix=fix, evidence=evidence)


def compare_report(report: Mapping[str, Any], spec: ImageSpec, *, gpu: bool) -> list[Finding]:
    """Pure: the probe's report against the row, one Finding per promise. The report comes
    from inside the image: every field is read through verify_report's typed accessors, so a
    value of the wrong shape counts as not reported (a failed promise), never an exception."""
    row = spec.row
    findings = []
    py = verify_report.text(report.get("python_version")) or ""
    findings.append(
        _finding(
            "verify-python",
            versions.same_prefix(py, row.python, 2),
            f"Python {py or 'missing'} (row: {row.python})",
            "" if versions.same_prefix(py, row.python, 2) else "the image runs another Python",
            {"image": py, "row": row.python},
        )
    )
    errors = report.get("errors")
    errors = verify_report.texts(errors if isinstance(errors, list) else [errors])
    version = verify_report.text(report.get("framework_version"))
    try:
        same = version is not None and (
            versions.pep440(version).public == versions.pep440(row.version).public
        )
    except ValueError:  # packaging's InvalidVersion
        same = False
    findings.append(
        _finding(
            "verify-framework-version",
            same,
            f"{row.framework} {version or 'not importable'} (row: {row.version})",
            "; ".join(errors),
            {"image": version, "row": row.version},
        )
    )
    findings.append(_cuda_finding(report, spec))
    findings.append(_cudnn_finding(report, spec))
    findings.append(_arch_finding(report, spec))
    findings.append(_cuda_once_finding(report))
    findings.extend(_gpu_findings(report, gpu))
    # Titles and evidence quote what the image reported: printable before any format.
    return [clean_finding(f) for f in findings]


def _cuda_once_finding(report: Mapping[str, Any]) -> Finding:
    """Each CUDA library once: the same library in two folders (an nvidia/cuda base's
    /usr/local/cuda and the framework's nvidia-* wheels) wastes gigabytes, and which copy the
    loader takes depends on the search order."""
    duplicates = verify_report.text_lists(report.get("cuda_library_duplicates"))
    if duplicates is None:
        return _make("verify-cuda-once", Severity.NA, "CUDA libraries: not reported")
    found = sorted(duplicates)
    return _finding(
        "verify-cuda-once",
        not found,
        "each CUDA library once" if not found else f"CUDA libraries twice: {', '.join(found)}",
        "; ".join(f"{lib} in {' and '.join(duplicates[lib])}" for lib in found),
        {"duplicates": ", ".join(found) or "none"},
    )


def _cuda_finding(report: Mapping[str, Any], spec: ImageSpec) -> Finding:
    built = verify_report.text(report.get("built_cuda"))
    row = spec.row
    ok = built is not None and versions.same_prefix(built, row.cuda, 2)
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
    built, promised = verify_report.text(report.get("built_cudnn")), spec.row.cudnn
    if promised is None:
        return _make("verify-built-cudnn", Severity.NA, "cuDNN: the row names none")
    # Compare as many components as both sides give: torch reports M.m.p, TF often only M.
    ok = built is not None and versions.same_prefix(built, promised)
    return _finding(
        "verify-built-cudnn",
        ok,
        f"built with cuDNN {built or 'none'} (row: {promised})",
        "" if ok else f"cuDNN {built or 'none'} in the image, the row promises {promised}",
        {"image": built, "row": promised},
    )


def torch_arch_names(arch_list: Sequence[str]) -> set[str]:
    """A TORCH_CUDA_ARCH_LIST ("8.0", "9.0a", "9.0+PTX") as torch.cuda.get_arch_list() names it
    ("sm_80", "sm_90a", "sm_90" and "compute_90")."""
    names: set[str] = set()
    for entry in arch_list:
        base, ptx = entry.removesuffix("+PTX"), entry.endswith("+PTX")
        digits = base.replace(".", "")
        names.add(f"sm_{digits}")
        if ptx:
            names.add(f"compute_{digits.rstrip('af')}")
    return names


def _arch_finding(report: Mapping[str, Any], spec: ImageSpec) -> Finding:
    """The compiled architectures torch reports against the row's arch list (a fact often not
    read from the wheel: the row's provenance)."""
    promised, built = spec.row.arch_list, report.get("arch_list")
    if not promised:
        return _make("verify-arch-list", Severity.NA, "arch list: the row names none")
    if not isinstance(built, list) or not built:
        return _make(
            "verify-arch-list",
            Severity.NA,
            "arch list: not reported (this torch gave neither get_arch_list() nor its "
            "compiled arch flags here: verify with a GPU)",
        )
    want, have = torch_arch_names(promised), {str(a) for a in built}
    ok = want == have
    shown = " ".join(sorted(have))
    return _finding(
        "verify-arch-list",
        ok,
        f"compiled for {shown} (row: {' '.join(promised)})",
        "" if ok else f"arch list {shown} in the image, the row promises {' '.join(sorted(want))}",
        {"image": shown, "row": " ".join(promised)},
    )


def _gpu_findings(report: Mapping[str, Any], gpu: bool) -> list[Finding]:
    if not gpu:
        return [
            _make(
                "verify-cuda-available",
                Severity.NA,
                "CUDA at run time: not checked (verify ran without a GPU)",
                detail="on a host with a GPU and the NVIDIA runtime, build verifies with --gpus",
                evidence=(
                    ("cuda_available", str(verify_report.flag(report.get("cuda_available")))),
                ),
            )
        ]
    available = verify_report.flag(report.get("cuda_available")) is True
    count = verify_report.integer(report.get("device_count")) or 0
    result = verify_report.number(report.get("kernel_result"))
    expected = verify_report.number(report.get("kernel_expected"))
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
            verify_report.text(report.get("kernel_error")) or "",
            {
                "result": result,
                "expected": expected,
                "device": verify_report.text(report.get("device_name")),
            },
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


def verify_image(
    engine: ImageEngine,
    image: str,
    spec: ImageSpec,
    *,
    gpu: bool,
    template_dir: Path | None = None,
) -> list[Finding]:
    """Run the probe in `image` and compare it and the image's labels with the row.

    Raises:
        VerifyFailed: the image does not exist, or the probe printed no report.
    """
    info = engine.inspect(image)
    if info is None:
        raise VerifyFailed(f"image {image} not found", hint="build it first")
    report = run_probe(engine, image, spec, gpu=gpu, template_dir=template_dir)
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
