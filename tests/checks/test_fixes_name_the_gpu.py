"""A fix is a command for this host: a fix for one GPU names its index (not `-i N`; for several
GPUs the subject lists them), and a fix for a pasted error line does not assume a GPU the report
does not show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.hosts import HOST_NAMES, ROOT, host


@pytest.mark.parametrize("name", HOST_NAMES)
def test_a_fix_for_one_gpu_names_it(name: str, matrix: Matrix) -> None:
    for f in run_checks(host(name), matrix).findings:
        if re.fullmatch(r"GPU \d+", f.subject):
            assert not re.search(r"-i N\b", f.fix), (f.code, f.subject, f.fix)


def test_the_mig_and_ecc_reset_fixes_name_the_gpu(matrix: Matrix) -> None:
    fixes = {
        (f.code, f.subject): f.fix
        for n in ("a100-mig-pending", "memory-repair-pending")
        for f in run_checks(host(n), matrix).findings
        if f.fix and f.code in ("mig-mode-pending", "ecc-errors", "memory-repair-pending")
    }
    assert fixes
    for (_code, subject), fix in fixes.items():
        one = re.fullmatch(r"GPU (\d+)", subject)
        assert f"nvidia-smi -i {one.group(1) if one else 'N'} -r" in fix, (subject, fix)
    assert any(re.fullmatch(r"GPU \d+", subject) for _code, subject in fixes)


def test_no_kernel_image_on_a_pascal_gpu_is_not_told_to_get_a_blackwell_build(
    matrix: Matrix,
) -> None:
    path = Path(ROOT / "tests" / "data" / "reports" / "vllm-3785-p100-no-kernel-image.txt")
    facts = read_report(path.read_text(encoding="utf-8"), path.name, matrix.architectures)
    fixes = [f.fix for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert fixes
    assert not any("Blackwell" in fix or "sm_120" in fix for fix in fixes)
