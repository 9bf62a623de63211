"""deploy/: the DaemonSet's safety properties, its check loop, the alert rules against the metrics
render_prometheus really emits, and the image's Dockerfile."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.report.prometheus import render_prometheus
from tests.support.ci import REPO
from tests.support.fleet_hosts import degraded_findings, degraded_host

DEPLOY = REPO / "deploy"
DAEMONSET_FILE = DEPLOY / "kubernetes" / "daemonset.yaml"
RULE_FILE = DEPLOY / "kubernetes" / "prometheus-rule.yaml"
DOCS = yaml.safe_load_all(DAEMONSET_FILE.read_text(encoding="utf-8"))
BY_KIND = {doc["kind"]: doc for doc in DOCS}
DAEMONSET = BY_KIND["DaemonSet"]
POD = DAEMONSET["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
ENV = {e["name"]: e["value"] for e in CONTAINER["env"]}


def test_every_object_is_complete() -> None:
    assert set(BY_KIND) == {"ServiceAccount", "DaemonSet"}
    for doc in BY_KIND.values():
        assert doc["apiVersion"]
        assert doc["metadata"]["name"] == "gpudoctor"
        assert doc["metadata"]["namespace"] == "gpudoctor"
    assert DAEMONSET["apiVersion"] == "apps/v1"
    labels = DAEMONSET["spec"]["template"]["metadata"]["labels"]
    assert DAEMONSET["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert CONTAINER["image"]
    assert CONTAINER["command"]
    assert POD["serviceAccountName"] == BY_KIND["ServiceAccount"]["metadata"]["name"]


def test_runs_on_gpu_nodes_only_through_the_nvidia_runtime() -> None:
    assert POD["nodeSelector"] == {"nvidia.com/gpu.present": "true"}  # a string, as GFD sets it
    assert "feature.node.kubernetes.io/pci-10de.present" in DAEMONSET_FILE.read_text("utf-8")
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in POD[
        "tolerations"
    ]
    assert POD["runtimeClassName"] == "nvidia"
    assert ENV["NVIDIA_VISIBLE_DEVICES"] == "all"
    assert ENV["NVIDIA_DRIVER_CAPABILITIES"] == "utility"
    # Seeing every GPU must not take one from the workloads.
    assert "nvidia.com/gpu" not in str(CONTAINER["resources"])


def test_least_privilege() -> None:
    security = CONTAINER["securityContext"]
    assert security.get("privileged", False) is False
    assert security["allowPrivilegeEscalation"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    assert not any(POD.get(k) for k in ("hostPID", "hostIPC", "hostNetwork"))
    assert POD["automountServiceAccountToken"] is False
    assert BY_KIND["ServiceAccount"]["automountServiceAccountToken"] is False
    resources = CONTAINER["resources"]
    assert set(resources["limits"]) == {"cpu", "memory"}
    assert set(resources["requests"]) == {"cpu", "memory"}


def test_host_paths_are_read_only_except_the_textfile_directory() -> None:
    host_volumes = {v["name"]: v["hostPath"]["path"] for v in POD["volumes"] if "hostPath" in v}
    writable = [
        m
        for m in CONTAINER["volumeMounts"]
        if m["name"] in host_volumes and not m.get("readOnly", False)
    ]
    assert [m["mountPath"] for m in writable] == [ENV["TEXTFILE_DIR"]]
    assert host_volumes[writable[0]["name"]] == ENV["TEXTFILE_DIR"]
    mounted = {m["mountPath"] for m in CONTAINER["volumeMounts"]}
    assert not mounted & {"/proc", "/sys", "/var/run/docker.sock", "/"}


def test_the_loop_writes_prometheus_metrics_and_survives_a_failed_check(tmp_path: Path) -> None:
    """The container's shell loop, run with a stand-in gpudoctor that fails its first check and
    stops the loop on its second call."""
    log = tmp_path / "calls"
    stub = tmp_path / "bin" / "gpudoctor"
    stub.parent.mkdir()
    stub.write_text(
        f"#!{sys.executable}\n"
        "import os, signal, sys\n"
        f"with open({str(log)!r}, 'a') as f: f.write(repr(sys.argv[1:]) + '\\n')\n"
        f"calls = len(open({str(log)!r}).read().splitlines())\n"
        "if calls >= 2: os.kill(os.getppid(), signal.SIGTERM)\n"
        "sys.exit(1)\n",
        encoding="utf-8",
    )
    stub.chmod(0o755)
    env = {
        **ENV,
        "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}",
        "INTERVAL_SECONDS": "0",
        "TEXTFILE_DIR": str(tmp_path),
        "GPUDOCTOR_ARGS": "--require driver>=550",
    }
    command = [*CONTAINER["command"], *CONTAINER["args"]]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == -signal.SIGTERM
    assert "gpudoctor check exited 1" in done.stdout
    expected = [
        "check",
        "--format",
        "prometheus",
        "--require",
        "driver>=550",
        "-o",
        f"{tmp_path}/gpudoctor.prom",
    ]
    assert log.read_text(encoding="utf-8").splitlines() == [repr(expected)] * 2


def rendered_labels() -> dict[str, set[str]]:
    text = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=0)
    return {
        f.name: {label for s in f.samples for label in s.labels}
        for f in text_string_to_metric_families(text)
        if f.samples
    }


def rules() -> list[dict[str, object]]:
    doc = yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))
    assert (doc["apiVersion"], doc["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    return [rule for group in doc["spec"]["groups"] for rule in group["rules"]]


def test_alerts_use_only_metrics_and_labels_that_are_emitted() -> None:
    emitted = rendered_labels()
    for rule in rules():
        expr = str(rule["expr"])
        names = set(re.findall(r"\bgpudoctor_[a-z_]+", expr))
        assert names, rule["alert"]
        assert names <= set(emitted), (rule["alert"], names - set(emitted))
        for name, matchers in re.findall(r"\b(gpudoctor_[a-z_]+)\{([^}]*)\}", expr):
            for label in re.findall(r"(\w+)\s*=~?", matchers):
                assert label in emitted[name], (rule["alert"], name, label)
        available = set().union(*(emitted[n] for n in names)) | {"instance", "job"}
        annotations = " ".join(map(str, dict(rule["annotations"]).values()))  # type: ignore[call-overload]
        for label in re.findall(r"\$labels\.(\w+)", annotations):
            assert label in available, (rule["alert"], label)


def test_the_promised_alerts_exist() -> None:
    exprs = {str(r["alert"]): str(r["expr"]) for r in rules()}
    assert 'gpudoctor_check_status{severity="error"}' in exprs["GpudoctorCheckError"]
    assert "gpudoctor_gpu_mig_mode_pending" in exprs["GpudoctorMigModePending"]
    assert "gpudoctor_gpu_pcie_link_width_ratio" in exprs["GpudoctorPcieLinkDegraded"]
    assert "gpudoctor_last_run_timestamp_seconds" in exprs["GpudoctorMetricsStale"]
    for rule in rules():
        assert rule["labels"]["severity"] in {"warning", "critical"}  # type: ignore[index]
        assert rule["annotations"]["summary"]  # type: ignore[index]


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint is not installed")
def test_the_image_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(
        ["hadolint", str(DEPLOY / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_image_dockerfile_copies_what_the_wheel_needs() -> None:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    for needed in ("pyproject.toml", "README.md", "gpudoctor", "matrices", "templates"):
        assert re.search(rf"^COPY .*\b{needed}\b", text, re.MULTILINE), needed
