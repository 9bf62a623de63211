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


def _fake_jax(site: Path, versions: str | None) -> Path:
    """A jax with one GPU; `versions` the body of its jax._src.lib (None: no such module)."""
    (site / "jax").mkdir(parents=True)
    (site / "jax" / "__init__.py").write_text(
        "__version__ = '0.11.2'\n"
        "class _Gpu:\n"
        "    device_kind = 'NVIDIA H200'\n"
        "    compute_capability = '9.0'\n"
        "def devices(kind):\n"
        "    return [_Gpu()]\n",
        encoding="utf-8",
    )
    if versions is not None:
        (site / "jax" / "_src" / "lib").mkdir(parents=True)
        (site / "jax" / "_src" / "__init__.py").write_text("", encoding="utf-8")
        (site / "jax" / "_src" / "lib" / "__init__.py").write_text(versions, encoding="utf-8")
    return site


def test_jax_reports_the_cuda_and_cudnn_of_its_cuda_plugin(tmp_path: Path) -> None:
    # what jax 0.11.2's jax_cuda13_plugin answered on the recorded H200 host: built with CUDA
    # 13.0 (13000), cuDNN 9.19.0 loaded (91900)
    versions = (
        "class cuda_versions:\n"
        "    cuda_runtime_build_version = staticmethod(lambda: 13000)\n"
        "    cudnn_get_version = staticmethod(lambda: 91900)\n"
    )
    report = _report(_fake_jax(tmp_path / "site", versions), "jax")
    assert (report["built_cuda"], report["built_cudnn"]) == ("13.0", "9.19.0")
    assert report["device_count"] == 1


def test_a_jax_without_the_plugins_version_module_reports_no_versions(tmp_path: Path) -> None:
    # Near misses: no jax._src.lib at all, and one whose cuda_versions is None (no CUDA plugin)
    for name, versions in (("none", None), ("empty", "cuda_versions = None\n")):
        report = _report(_fake_jax(tmp_path / name, versions), "jax")
        assert report["imported"] == "jax"
        assert report.get("built_cuda") is None
        assert report.get("built_cudnn") is None
