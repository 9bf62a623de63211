"""Every word true: what the reports, hints and error lines say holds for the input at hand.
One test per class of wording the issue found false: a pasted report's header lists only what
is absent; text and JSON agree on every area's status; a requirement the host has no part for
is not "install it"; did-you-mean covers option names, `--json` and requirement keys; an empty
file is named as empty; Docker errors are in words, with systemctl only where systemd runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudoctor.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ROOT / "tests" / "data" / "hosts"
REPORTS = ROOT / "tests" / "data" / "reports"
MARK_STATUS = {"✓": "ok", "✗": "error", "!": "warn", "?": "unknown", "-": "n/a"}


def _out(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = run(args)
    out, err = capsys.readouterr()
    return code, out, err


# --- pasted reports: only what is absent -------------------------------------------------------


def test_a_pasted_report_never_claims_a_flag_nobody_gave(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _out(
        capsys, ["check", "--from", str(REPORTS / "vllm-3785-p100-no-kernel-image.txt")]
    )
    assert "--no-docker" not in out
    assert "[-] Container runtime: not in the report" in out


def test_a_pasted_report_asks_only_for_the_outputs_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_smi = REPORTS / "netdata-15755-xml-rtx4090.txt"  # nvidia-smi -q -x, no collect_env
    _, out, _ = _out(capsys, ["check", "--from", str(with_smi), "--format", "json"])
    (read,) = [f for f in json.loads(out)["findings"] if f["code"] == "report-read"]
    assert "nvidia-smi" in read["title"]
    assert "`nvidia-smi`" not in read["fix"]
    assert "collect_env" in read["fix"]
    collect_env = REPORTS / "vllm-3785-p100-no-kernel-image.txt"  # collect_env, no nvidia-smi
    _, out, _ = _out(capsys, ["check", "--from", str(collect_env), "--format", "json"])
    (read,) = [f for f in json.loads(out)["findings"] if f["code"] == "report-read"]
    assert "`nvidia-smi`" in read["fix"]
    assert "collect_env`" not in read["fix"]


# --- one status per area, in every format ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.stem for p in HOSTS.glob("*.json")))
def test_text_and_json_give_every_area_the_same_status(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    host = str(HOSTS / f"{name}.json")
    _, text, _ = _out(capsys, ["check", "--from", host])
    _, data, _ = _out(capsys, ["check", "--from", host, "--format", "json"])
    areas = json.loads(data)["areas"]
    marks = [MARK_STATUS[m] for m in re.findall(r"^\[(.)\] ", text, re.MULTILINE)]
    assert marks == [a["status"] for a in areas]


def test_gpu_areas_of_a_host_without_a_gpu_are_not_a_pass(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, data, _ = _out(
        capsys, ["check", "--from", str(HOSTS / "no-gpu-toolkit-only.json"), "--format", "json"]
    )
    status = {a["area"]: a["status"] for a in json.loads(data)["areas"]}
    assert status["driver"] == status["multigpu"] == status["runtime"] == "n/a"
    assert status["platform"] == "ok"  # checked, and fine


# --- a requirement for a part the host does not have -------------------------------------------


def test_fabric_required_where_there_is_no_nvswitch_asks_for_no_install(
    capsys: pytest.CaptureFixture[str],
) -> None:
    host = str(HOSTS / "pcie-4x-acs-on.json")
    code, data, _ = _out(
        capsys, ["check", "--from", host, "--require", "fabric=ok", "--format", "json"]
    )
    (req,) = [f for f in json.loads(data)["findings"] if f["code"] == "requirement-fabric"]
    assert code == 1
    assert "not an NVSwitch system" in req["title"]
    assert "fabricmanager" not in req["fix"]
    assert "install" not in req["fix"].lower()
    assert "drop --require 'fabric=ok'" in req["fix"]


# --- did-you-mean ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["check", "--json"], "hint: did you mean --format json?"),
        (["build", "--markdown"], None),  # build has --format, but not that value: no guess
        (["check", "--require", "gpu>=1"], "hint: did you mean gpus? --require 'gpus>=1'"),
        (["check", "--require", "drivr>=550"], "hint: did you mean driver?"),
        (["check", "--stirct"], "hint: did you mean --strict?"),
    ],
)
def test_did_you_mean_covers_options_format_flags_and_requirement_keys(
    args: list[str], hint: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _out(capsys, args)
    assert code == 2
    if hint is None:
        assert "--format markdown" not in err
    else:
        assert hint in err


# --- empty input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "words"), [("", "is empty"), ("\n  \n", "holds only blank lines")]
)
def test_an_empty_file_is_named_as_empty(
    content: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(content)
    code, _, err = _out(capsys, ["check", "--from", str(path)])
    first, hint = err.splitlines()
    assert code == 2
    assert first == f"error: {path}: the file {words}"
    assert len(hint) < 200


# --- Docker errors ------------------------------------------------------------------------------


def test_an_unreachable_daemon_is_named_in_words_without_urllib3_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/docker.sock")
    code, _, err = _out(capsys, ["check", "--image", "some/image:1"])
    assert code == 3
    assert f"unix://{tmp_path}/docker.sock: no socket there (no daemon listening)" in err
    for noise in ("Connection aborted", "FileNotFoundError", "HTTPConnection", "('"):
        assert noise not in err
    systemd = Path("/run/systemd/system").is_dir()
    assert ("systemctl" in err) is systemd


def test_a_refused_tcp_daemon_is_started_there_not_here() -> None:
    import socket

    from gpudoctor.docker.sdk_engine import DockerSdkEngine
    from gpudoctor.errors import EnvironmentUnavailable

    with socket.socket() as listener:  # a port that was free a moment ago: nothing listens
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
    with pytest.raises(EnvironmentUnavailable) as info:
        DockerSdkEngine.connect({"DOCKER_HOST": f"tcp://127.0.0.1:{port}"})
    assert info.value.message.endswith("connection refused (nothing listens there)")
    assert "Max retries" not in info.value.message
    assert info.value.hint is not None
    assert info.value.hint.startswith("start the Docker daemon on that host")


@pytest.mark.parametrize(("systemd", "has_systemctl"), [(True, True), (False, False)])
def test_systemctl_only_where_systemd_runs(systemd: bool, has_systemctl: bool) -> None:
    from dataclasses import replace

    from gpudoctor.checks.runtime import docker_absence
    from gpudoctor.docker.sdk_engine import daemon_hint
    from tests.support.hosts import host

    hint = daemon_hint("unix:///var/run/docker.sock", "no socket there", systemd=systemd)
    assert ("systemctl" in hint) is has_systemctl
    facts = host("no-gpu-toolkit-only")
    facts = replace(
        facts,
        platform=replace(facts.platform, systemd=systemd),
        container_runtime=replace(
            facts.container_runtime, docker_reachable=False, docker_client="/usr/bin/docker"
        ),
    )
    assert ("systemctl" in docker_absence(facts)) is has_systemctl
    from gpudoctor.checks.requirements import judge, parse_requirement
    from gpudoctor.matrix.load import load_matrix
    from gpudoctor.resources import default_matrix_path

    runc_only = replace(
        facts,
        container_runtime=replace(
            facts.container_runtime, docker_reachable=True, runtimes=("runc",)
        ),
    )
    matrix = load_matrix(default_matrix_path())
    unmet = judge(runc_only, matrix, parse_requirement("runtime=nvidia"))
    assert unmet.severity.value == "error"
    assert "nvidia-ctk runtime configure" in unmet.fix
    assert ("systemctl" in unmet.fix) is has_systemctl
