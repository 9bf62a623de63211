"""templates/verify_image.py as `gpudoctor build` reads it: the keys added for --deep keep the
old ones working, and a failing kernel reaches build verify's verify-kernel finding."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.builder.verify import compare_report
from gpudoctor.compat.resolve import all_rows
from gpudoctor.findings import Severity
from gpudoctor.matrix.load import load_matrix
from tests.support.fake_torch import NO_KERNEL_IMAGE, make_fake_torch
from tests.support.verify_script import verify_report


def _report(site: Path, *args: str) -> dict[str, object]:
    # Hermetic: only `site` is importable, not this interpreter's site-packages (a GPU host's
    # real torch or jax would import where the test expects none).
    return verify_report(site, *args)


def test_a_failing_kernel_is_verify_kernels_error_with_the_message(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path, kernel=f"raise RuntimeError({NO_KERNEL_IMAGE!r})")
    report = _report(site, "pytorch", "--kernel")
    assert report["kernel_ok"] is False
    assert report["errors"] == []  # the kernel's failure has its own key
    assert report["device_name"] == "NVIDIA H100 80GB HBM3"
    row = next(
        r
        for r in all_rows(load_matrix())
        if (r.framework, r.version, r.cuda) == ("pytorch", "2.5.1", "12.4")
    )
    findings = {f.code: f for f in compare_report(report, make_spec(row, BuildOptions()), gpu=True)}
    assert findings["verify-cuda-available"].severity is Severity.OK
    assert findings["verify-kernel"].severity is Severity.ERROR
    assert findings["verify-kernel"].detail == f"RuntimeError: {NO_KERNEL_IMAGE}"


def test_a_working_kernel_keeps_the_result_keys_build_compares(tmp_path: Path) -> None:
    report = _report(make_fake_torch(tmp_path), "pytorch", "--kernel")
    assert report["kernel_result"] == report["kernel_expected"] == 1047552.0
    assert report["kernel_ok"] is True
    assert report["imported"] == "pytorch"


def test_without_a_name_it_tries_each_framework_until_one_imports(tmp_path: Path) -> None:
    report = _report(make_fake_torch(tmp_path))
    assert report["imported"] == "pytorch"
    assert "kernel_ok" not in report  # no --kernel
    missing = _report(tmp_path / "nothing-here")
    assert "imported" not in missing
    assert missing["import_error"] == "ModuleNotFoundError: No module named 'jax'"
    assert len(missing["errors"]) == 3  # type: ignore[arg-type]
