"""`-o FILE` for the textfile collector: the file is replaced whole, never seen half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cli.common import write_output
from gpudoctor.errors import UsageError
from gpudoctor.report.prometheus import render_prometheus
from tests.support.fleet_hosts import degraded_findings, degraded_host, healthy_host


def test_write_replaces_the_file_by_rename(tmp_path: Path) -> None:
    target = tmp_path / "gpudoctor.prom"
    first = render_prometheus(healthy_host(), [], exit_code=0, now=1.0)
    write_output(first, target)
    with target.open(encoding="utf-8") as reader:  # a scrape that started before the rewrite
        second = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=2.0)
        write_output(second, target)
        assert reader.read() == first  # rename: the open file keeps the old content, whole
    assert target.read_text(encoding="utf-8") == second
    # Only the final file is left; the collector reads *.prom, so a temporary never shows anyway.
    assert [p.name for p in tmp_path.iterdir()] == ["gpudoctor.prom"]


def test_write_into_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot write .*missing/gpudoctor\.prom"):
        write_output("x 1\n", tmp_path / "missing" / "gpudoctor.prom")
