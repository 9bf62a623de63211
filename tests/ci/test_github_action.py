"""The GitHub Action: action.yml's wiring and ci/github-action.sh run as the runner would run it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from gpudoctor.facts import HostFacts
from tests.support.ci import ACTION_SCRIPT, REPO, make_stub, run_action, write_snapshot
from tests.support.fleet_hosts import degraded_host, no_driver_host
from tests.support.repo import git_repository

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))


def env_name(input_name: str) -> str:
    return "INPUT_" + input_name.upper().replace("-", "_")


# --- action.yml -----------------------------------------------------------------------------


def test_action_is_composite_and_installs_from_its_own_path() -> None:
    runs = ACTION["runs"]
    assert runs["using"] == "composite"
    install, check = runs["steps"]
    assert install["env"]["GPUDOCTOR_SOURCE"] == "${{ github.action_path }}"
    assert install["run"].endswith('ci/github-action.sh" install')
    assert check["id"] == "check"
    assert check["run"].endswith('ci/github-action.sh" check')
    assert {step["shell"] for step in runs["steps"]} == {"bash"}


def test_every_input_reaches_the_script_as_an_env_var_and_never_as_shell_text() -> None:
    inputs = ACTION["inputs"]
    install, check = ACTION["runs"]["steps"]
    passed = {**install["env"], **check["env"]}
    script = ACTION_SCRIPT.read_text(encoding="utf-8")
    for name in inputs:
        assert passed[env_name(name)] == f"${{{{ inputs.{name} }}}}", name
        assert env_name(name) in script, f"the script ignores input {name}"
    for step in ACTION["runs"]["steps"]:
        assert "inputs." not in step["run"]  # `${{ inputs.x }}` in run: = shell injection
    assert (inputs["format"]["default"], inputs["strict"]["default"]) == ("github", "false")
    assert inputs["skip-without-gpu"]["default"] == "false"


def test_every_output_is_set_by_the_script() -> None:
    script = ACTION_SCRIPT.read_text(encoding="utf-8")
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.check.outputs.{name} }}}}"
        assert re.search(rf"\boutput {re.escape(name)} ", script), name


# --- the script, with the recording stand-in ----------------------------------------------------


@pytest.fixture
def gpu_snapshot(tmp_path: Path) -> Path:
    return write_snapshot(tmp_path / "gpu.json", degraded_host())


@pytest.fixture
def cpu_snapshot(tmp_path: Path) -> Path:
    return write_snapshot(tmp_path / "cpu.json", HostFacts(tool_version="0.1.0"))


def test_inputs_become_check_arguments(tmp_path: Path, gpu_snapshot: Path) -> None:
    stub, env = make_stub(tmp_path, gpu_snapshot)
    env |= {
        "INPUT_REQUIRE": "driver>=550\ncuda>=12.1 , gpus>=2,\r\n\n  mig=off  ,",
        "INPUT_FRAMEWORK": " pytorch==2.5 ",
        "INPUT_CUDA": "12.4",
        "INPUT_STRICT": "True",
        "INPUT_FORMAT": "json",
        "INPUT_OUTPUT": "report.json",
    }
    run = run_action(tmp_path, env)
    assert run.rc == 0, run.stderr
    assert stub.checks() == [
        [
            "check",
            "--format",
            "json",
            "--require",
            "driver>=550",
            "--require",
            "cuda>=12.1",
            "--require",
            "gpus>=2",
            "--require",
            "mig=off",
            "--framework",
            "pytorch==2.5",
            "--cuda",
            "12.4",
            "--strict",
            "-o",
            "report.json",
        ]
    ]
    assert run.outputs == {
        "gpu-present": "true",
        "snapshot": str(tmp_path / "gpudoctor-snapshot.json"),
        "result": "passed",
        "exit-code": "0",
    }
    assert "gpudoctor check: passed (exit 0)" in run.summary  # non-github formats get a line


def test_defaults_run_the_github_format_only(tmp_path: Path, gpu_snapshot: Path) -> None:
    stub, env = make_stub(tmp_path, gpu_snapshot)
    run = run_action(tmp_path, env)
    assert stub.checks() == [["check", "--format", "github"]]
    assert run.summary == ""  # the github reporter writes the summary itself


@pytest.mark.parametrize(
    ("rc", "result"), [(1, "failed"), (2, "bad-input"), (3, "environment"), (70, "error")]
)
def test_the_check_exit_code_fails_the_step(
    tmp_path: Path, gpu_snapshot: Path, rc: int, result: str
) -> None:
    _, env = make_stub(tmp_path, gpu_snapshot)
    run = run_action(tmp_path, {**env, "STUB_RC": str(rc)})
    assert run.rc == rc
    assert (run.outputs["result"], run.outputs["exit-code"]) == (result, str(rc))


def test_no_gpu_fails_clearly_even_when_the_checks_pass(tmp_path: Path, cpu_snapshot: Path) -> None:
    stub, env = make_stub(tmp_path, cpu_snapshot)
    run = run_action(tmp_path, env)
    assert len(stub.checks()) == 1  # the report still comes, for the annotations
    assert run.rc == 1
    assert "::error title=gpudoctor::No NVIDIA GPU on this runner." in run.stdout
    assert "skip-without-gpu: true" in run.stdout
    assert (run.outputs["gpu-present"], run.outputs["result"]) == ("false", "failed")
    assert "no NVIDIA GPU on this runner" in run.summary


def test_no_gpu_with_skip_skips_with_a_notice(tmp_path: Path, cpu_snapshot: Path) -> None:
    stub, env = make_stub(tmp_path, cpu_snapshot)
    run = run_action(tmp_path, {**env, "INPUT_SKIP_WITHOUT_GPU": "true"})
    assert run.rc == 0
    assert stub.checks() == []
    assert "::notice title=gpudoctor::No NVIDIA GPU on this runner: checks skipped" in run.stdout
    assert run.outputs == {
        "gpu-present": "false",
        "snapshot": str(tmp_path / "gpudoctor-snapshot.json"),
        "result": "skipped",
        "exit-code": "0",
    }
    assert run.summary.startswith("### gpudoctor: skipped\n")


def test_a_gpu_on_the_bus_without_a_driver_is_not_skipped(tmp_path: Path) -> None:
    snapshot = write_snapshot(tmp_path / "nodriver.json", no_driver_host())
    stub, env = make_stub(tmp_path, snapshot)
    run = run_action(tmp_path, {**env, "INPUT_SKIP_WITHOUT_GPU": "true", "STUB_RC": "1"})
    assert (run.rc, run.outputs["gpu-present"]) == (1, "true")
    assert len(stub.checks()) == 1


def test_from_judges_the_given_snapshot_without_taking_one(
    tmp_path: Path, cpu_snapshot: Path, gpu_snapshot: Path
) -> None:
    stub, env = make_stub(tmp_path, cpu_snapshot)
    run = run_action(tmp_path, {**env, "INPUT_FROM": str(gpu_snapshot)})
    assert run.rc == 0
    assert [c[0] for c in stub.calls()] == ["check"]
    assert stub.checks()[0][-2:] == ["--from", str(gpu_snapshot)]
    assert run.outputs["gpu-present"] == "true"


def test_a_multi_line_input_cannot_inject_outputs_or_commands(
    tmp_path: Path, gpu_snapshot: Path
) -> None:
    _, env = make_stub(tmp_path, gpu_snapshot)
    evil = f"{gpu_snapshot}\nresult=passed\n::error::forged"
    run = run_action(tmp_path, {**env, "INPUT_FROM": evil, "STUB_RC": "1"})
    assert run.rc == 1
    assert run.outputs["result"] == "failed"
    assert run.outputs["snapshot"] == evil
    assert "\n::error::forged" not in run.stdout


def test_a_failed_snapshot_means_unknown_and_the_check_still_runs(tmp_path: Path) -> None:
    stub, env = make_stub(tmp_path, tmp_path / "missing.json")  # the stand-in's cp fails
    run = run_action(tmp_path, env)
    assert run.rc == 0
    assert (run.outputs["gpu-present"], run.outputs["snapshot"]) == ("unknown", "")
    assert len(stub.checks()) == 1


@pytest.mark.parametrize("name", ["INPUT_STRICT", "INPUT_SKIP_WITHOUT_GPU"])
def test_a_bad_boolean_is_bad_input(tmp_path: Path, gpu_snapshot: Path, name: str) -> None:
    stub, env = make_stub(tmp_path, gpu_snapshot)
    run = run_action(tmp_path, {**env, name: "maybe"})
    assert run.rc == 2
    assert "must be true or false, not 'maybe'" in run.stdout
    assert stub.checks() == []


def test_unknown_subcommand_is_a_usage_error(tmp_path: Path) -> None:
    run = run_action(tmp_path, {}, "frobnicate")
    assert run.rc == 2
    assert "usage:" in run.stderr


# --- the script with the real gpudoctor ---------------------------------------------------------


@pytest.mark.usefixtures("no_gpu_here")
def test_real_snapshot_on_this_cpu_host_skips_when_asked(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"INPUT_SKIP_WITHOUT_GPU": "true"})
    assert run.rc == 0, run.stdout + run.stderr
    assert run.outputs["result"] == "skipped"
    snapshot = json.loads(Path(run.outputs["snapshot"]).read_text(encoding="utf-8"))
    assert snapshot["schema_version"] >= 1


@pytest.mark.usefixtures("no_gpu_here")
def test_real_check_on_this_cpu_host_fails_clearly(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"INPUT_FORMAT": "json", "INPUT_OUTPUT": "report.json"})
    assert run.rc == 1, run.stdout + run.stderr
    assert "No NVIDIA GPU on this runner" in run.stdout
    json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))


def test_real_check_of_a_recorded_degraded_host_fails_with_annotations(tmp_path: Path) -> None:
    snapshot = write_snapshot(tmp_path / "gpu.json", degraded_host())
    run = run_action(tmp_path, {"INPUT_FROM": str(snapshot), "INPUT_REQUIRE": "gpus>=8"})
    assert run.rc == 1, run.stdout + run.stderr
    assert "::error" in run.stdout
    assert run.summary.strip()  # the github reporter appended its markdown
    assert run.outputs["result"] == "failed"


def test_real_check_refuses_a_bad_requirement(tmp_path: Path) -> None:
    snapshot = write_snapshot(tmp_path / "gpu.json", degraded_host())
    run = run_action(tmp_path, {"INPUT_FROM": str(snapshot), "INPUT_REQUIRE": "gpus>>>2"})
    assert (run.rc, run.outputs["result"]) == (2, "bad-input")


def test_install_without_a_working_python_fails_clearly(tmp_path: Path) -> None:
    run = run_action(
        tmp_path, {"GPUDOCTOR_SOURCE": str(REPO), "INPUT_PYTHON": "no-such-python"}, "install"
    )
    assert run.rc == 3
    assert "::error title=gpudoctor::'no-such-python -m venv' failed." in run.stdout


@pytest.mark.slow  # a venv and a pip install of gpudoctor from a clone
def test_install_then_check_as_the_action_does(tmp_path: Path) -> None:
    """Both steps of action.yml in order, from the action's checkout at the ref `uses:` names (as
    the runner clones `OWNER/gpudoctor@v-test`: here from a file:// repository whose branch has
    moved past the tag): a venv with gpudoctor from that checkout, then a check."""
    url, tagged = git_repository(tmp_path / "repo", "v-test")
    action_path = tmp_path / "action"
    subprocess.run(
        ["git", "clone", "-q", "--branch", "v-test", url, str(action_path)],
        check=True,
        capture_output=True,
    )
    github_env = tmp_path / "github_env"
    env = {"GPUDOCTOR_SOURCE": str(action_path), "GITHUB_ENV": str(github_env)}
    installed = run_action(tmp_path, env, "install")
    assert installed.rc == 0, installed.stdout + installed.stderr
    exported = dict(line.split("=", 1) for line in github_env.read_text("utf-8").splitlines())
    assert exported["GPUDOCTOR"] == str(tmp_path / "gpudoctor-venv" / "bin" / "gpudoctor")
    (record,) = (tmp_path / "gpudoctor-venv" / "lib").glob(
        "python3.*/site-packages/gpudoctor-*.dist-info/direct_url.json"
    )
    assert json.loads(record.read_text(encoding="utf-8"))["url"] == action_path.as_uri()
    assert not (action_path / "LATER.txt").exists()  # the tagged commit, not the branch's head
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=action_path, capture_output=True, text=True, check=True
    )
    assert head.stdout.strip() == tagged
    snapshot = write_snapshot(tmp_path / "gpu.json", degraded_host())
    run = run_action(tmp_path, {**exported, "INPUT_FROM": str(snapshot), "INPUT_FORMAT": "text"})
    assert (run.rc, run.outputs["result"]) == (0, "passed"), run.stdout + run.stderr


def test_from_a_pasted_report_replies_in_markdown(tmp_path: Path) -> None:
    """The issue-triage workflow of docs/ci.md: `from` a pasted report, `format: markdown`."""
    issue = tmp_path / "issue.md"
    issue.write_text(
        "torch==2.5.1+cpu\n"
        "| NVIDIA-SMI 570.86.16      Driver Version: 570.86.16      CUDA Version: 12.8     |\n"
        "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |     N/A |\n",
        encoding="utf-8",
    )
    env = {"INPUT_FROM": str(issue), "INPUT_FORMAT": "markdown", "INPUT_OUTPUT": "reply.md"}
    run = run_action(tmp_path, env)
    assert run.rc == 1, run.stdout + run.stderr
    assert (run.outputs["gpu-present"], run.outputs["result"]) == ("unknown", "failed")
    assert "Traceback" not in run.stderr
    reply = (tmp_path / "reply.md").read_text(encoding="utf-8")
    assert reply.startswith("### gpudoctor\n")
    assert "CPU-only build" in reply
