"""ci/gitlab-gpudoctor.yml: its shape, and its script run under `sh` as a GitLab runner would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpudoctor.facts import HostFacts
from tests.support.ci import gitlab_job, make_stub, run_gitlab, write_snapshot
from tests.support.fleet_hosts import degraded_host
from tests.support.repo import git_repository

REPORTS = ("gpudoctor-snapshot.json", "gpudoctor-report.json", "gpudoctor-junit.xml")


def test_hidden_job_with_junit_report_and_artifacts_kept_on_failure() -> None:
    job = gitlab_job()
    artifacts = job["artifacts"]
    assert artifacts["reports"] == {"junit": "gpudoctor-junit.xml"}
    assert artifacts["when"] == "always"  # the reports matter most when the job fails
    assert tuple(artifacts["paths"]) == REPORTS
    script = "\n".join(job["script"])
    assert 'gpudoctor check "$@" --format junit -o gpudoctor-junit.xml' in script
    assert 'gpudoctor check "$@" --format json -o gpudoctor-report.json' in script
    assert set(job["variables"]) >= {
        "GPUDOCTOR_REPO",
        "GPUDOCTOR_REF",
        "GPUDOCTOR_PIP_SPEC",
        "GPUDOCTOR_REQUIRE",
        "GPUDOCTOR_FRAMEWORK",
        "GPUDOCTOR_CUDA",
        "GPUDOCTOR_STRICT",
        "GPUDOCTOR_SKIP_WITHOUT_GPU",
    }


def test_variables_become_check_arguments_for_every_report(tmp_path: Path) -> None:
    stub, env = make_stub(tmp_path, write_snapshot(tmp_path / "gpu.json", degraded_host()))
    done = run_gitlab(
        tmp_path,
        {
            **env,
            "GPUDOCTOR_PIP_SPEC": "none",
            "GPUDOCTOR_REQUIRE": "driver>=550, gpus>=2\n mig=off\n",
            "GPUDOCTOR_FRAMEWORK": "pytorch==2.5",
            "GPUDOCTOR_STRICT": "true",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    common = [
        "check",
        "--from",
        "gpudoctor-snapshot.json",
        "--require",
        "driver>=550",
        "--require",
        "gpus>=2",
        "--require",
        "mig=off",
        "--framework",
        "pytorch==2.5",
        "--strict",
    ]
    assert stub.checks() == [
        [*common, "--format", "json", "-o", "gpudoctor-report.json"],
        [*common, "--format", "junit", "-o", "gpudoctor-junit.xml"],
        [*common, "--format", "text"],
    ]
    assert [c[0] for c in stub.calls()] == ["--version", "snapshot", "check", "check", "check"]


def test_failed_check_fails_the_job_and_keeps_the_reports(tmp_path: Path) -> None:
    _, env = make_stub(tmp_path, write_snapshot(tmp_path / "gpu.json", degraded_host()))
    done = run_gitlab(tmp_path, {**env, "GPUDOCTOR_PIP_SPEC": "none", "STUB_RC": "1"})
    assert done.returncode == 1
    assert all((tmp_path / name).exists() for name in REPORTS)


def test_no_gpu_fails_even_when_the_checks_pass(tmp_path: Path) -> None:
    stub, env = make_stub(tmp_path, write_snapshot(tmp_path / "cpu.json", HostFacts()))
    done = run_gitlab(tmp_path, {**env, "GPUDOCTOR_PIP_SPEC": "none"})
    assert done.returncode == 1
    assert "gpudoctor: no NVIDIA GPU on this runner." in done.stdout
    assert len(stub.checks()) == 3


@pytest.mark.usefixtures("no_gpu_here")
def test_real_gpudoctor_skips_on_this_cpu_host_with_a_skipped_junit_test(tmp_path: Path) -> None:
    env = {"GPUDOCTOR_PIP_SPEC": "none", "GPUDOCTOR_SKIP_WITHOUT_GPU": "true"}
    done = run_gitlab(tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks skipped (GPUDOCTOR_SKIP_WITHOUT_GPU=true)" in done.stdout
    suite = ET.parse(tmp_path / "gpudoctor-junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("skipped")) == ("1", "1")
    json.loads((tmp_path / "gpudoctor-snapshot.json").read_text(encoding="utf-8"))


@pytest.mark.usefixtures("no_gpu_here")
def test_real_gpudoctor_fails_on_this_cpu_host_and_writes_its_reports(tmp_path: Path) -> None:
    done = run_gitlab(tmp_path, {"GPUDOCTOR_PIP_SPEC": "none"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no NVIDIA GPU on this runner" in done.stdout
    ET.parse(tmp_path / "gpudoctor-junit.xml")
    json.loads((tmp_path / "gpudoctor-report.json").read_text(encoding="utf-8"))


def test_the_default_names_no_package_and_refuses_the_placeholder_repository(
    tmp_path: Path,
) -> None:
    """gpudoctor is not on PyPI: never `pip install gpudoctor`; the template's OWNER URL is a
    placeholder to replace, refused in one line before pip or git are tried."""
    variables = gitlab_job()["variables"]
    assert variables["GPUDOCTOR_PIP_SPEC"] == ""  # type: ignore[index]
    assert "OWNER" in variables["GPUDOCTOR_REPO"]  # type: ignore[index]
    stub, env = make_stub(tmp_path, write_snapshot(tmp_path / "gpu.json", degraded_host()))
    done = run_gitlab(tmp_path, env)
    assert done.returncode == 2
    assert "GPUDOCTOR_REPO is the template's placeholder" in done.stdout
    assert stub.calls() == []


@pytest.mark.slow  # a venv and a pip install of gpudoctor from a git ref
@pytest.mark.usefixtures("no_gpu_here")
def test_installs_gpudoctor_from_the_repository_at_the_pinned_ref(tmp_path: Path) -> None:
    """The job's pip install from a git URL and ref (here a file:// repository whose branch has
    moved past the tag), into the job's Python (here a fresh venv standing in for the image's)."""
    url, tagged = git_repository(tmp_path / "repo", "v-test")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    path = f"{venv / 'bin'}:{os.environ['PATH']}"
    env = {
        "PATH": path,
        "GPUDOCTOR_REPO": url,
        "GPUDOCTOR_REF": "v-test",
        "GPUDOCTOR_SKIP_WITHOUT_GPU": "true",
    }
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"):
        if name in os.environ:  # the index this machine's pip is configured with
            env[name] = os.environ[name]
    done = run_gitlab(tmp_path, env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"gpudoctor: pip install git+{url}@v-test" in done.stdout
    (record,) = (venv / "lib").glob("python3.*/site-packages/gpudoctor-*.dist-info/direct_url.json")
    origin = json.loads(record.read_text(encoding="utf-8"))
    assert origin["url"] == url
    assert origin["vcs_info"] == {"vcs": "git", "requested_revision": "v-test", "commit_id": tagged}
    assert "checks skipped" in done.stdout
