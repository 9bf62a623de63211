"""deploy/: the DaemonSet's safety properties, its `gpudoctor serve` command, every manifest
against the Kubernetes API schemas (kubernetes-validate, offline), the alert rules against the
metrics serve really emits, and the image's Dockerfile."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.cli.serve_cmd import DEFAULT_PORT, check_interval, parse_listen
from gpudoctor.exporter.live import live_metrics
from gpudoctor.exporter.schedule import Outcome, State
from gpudoctor.report.prometheus import render_prometheus
from tests.support.ci import REPO
from tests.support.fleet_hosts import degraded_findings, degraded_host

DEPLOY = REPO / "deploy"
DAEMONSET_FILE = DEPLOY / "kubernetes" / "daemonset.yaml"
RULE_FILE = DEPLOY / "kubernetes" / "prometheus-rule.yaml"
MANIFESTS = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
DOCS = yaml.safe_load_all(DAEMONSET_FILE.read_text(encoding="utf-8"))
BY_KIND = {doc["kind"]: doc for doc in DOCS}
DAEMONSET = BY_KIND["DaemonSet"]
POD = DAEMONSET["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
ENV = {e["name"]: e.get("value") for e in CONTAINER["env"]}


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


def test_no_host_path_is_writable_and_the_container_is_not_root() -> None:
    host_volumes = {v["name"] for v in POD["volumes"] if "hostPath" in v}
    mounts = [m for m in CONTAINER["volumeMounts"] if m["name"] in host_volumes]
    assert mounts
    assert all(m.get("readOnly") is True for m in mounts)
    mounted = {m["mountPath"] for m in CONTAINER["volumeMounts"]}
    assert not mounted & {"/proc", "/sys", "/var/run/docker.sock", "/"}
    security = CONTAINER["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["runAsUser"] != 0


def expanded_args(pod_ip: str = "10.1.2.3") -> list[str]:
    """The container's arguments as the kubelet expands them ($(VAR) from the env)."""
    env = {**ENV, "POD_IP": pod_ip}
    return [re.sub(r"\$\((\w+)\)", lambda m: str(env[m.group(1)]), a) for a in CONTAINER["args"]]


def test_the_container_serves_on_the_pod_address_and_gpudoctors_port() -> None:
    assert CONTAINER["command"] == ["gpudoctor", "serve"]
    (pod_ip,) = [e for e in CONTAINER["env"] if e["name"] == "POD_IP"]
    assert pod_ip["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    args = expanded_args()
    options = {args[i]: args[i + 1] for i in range(0, len(args), 2)}
    assert parse_listen(options["--listen"]) == ("10.1.2.3", DEFAULT_PORT)
    # an IPv6 (or IPv6-first dual-stack) cluster gives the pod an IPv6 address
    v6 = expanded_args("fd00:10:244::7")
    assert parse_listen(v6[v6.index("--listen") + 1]) == ("fd00:10:244::7", DEFAULT_PORT)
    assert check_interval(float(options["--interval"])) == 300
    (port,) = CONTAINER["ports"]
    assert (port["name"], port["containerPort"]) == ("metrics", DEFAULT_PORT)
    template = DAEMONSET["spec"]["template"]["metadata"]
    assert template["annotations"]["prometheus.io/port"] == str(DEFAULT_PORT)
    ready, live = CONTAINER["readinessProbe"]["httpGet"], CONTAINER["livenessProbe"]["httpGet"]
    assert (ready["path"], ready["port"]) == ("/readyz", "metrics")
    assert (live["path"], live["port"]) == ("/healthz", "metrics")


def test_the_cli_accepts_the_containers_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """The expanded arguments parse (a bad option would exit 2 before binding anything): an
    address no host has makes serve stop at the bind with its own message, after parsing."""
    from gpudoctor.cli.app import run

    args = [a.replace("10.1.2.3", "192.0.2.1") for a in expanded_args()]  # TEST-NET-1
    assert run(["serve", *args]) == 2
    assert "--listen [192.0.2.1]:9489: cannot serve there" in capsys.readouterr().err


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_validates_against_the_kubernetes_schemas(path: Path) -> None:
    """kubernetes-validate ships the API schemas (no network). The Prometheus Operator's kinds
    have none there: those are held to their own shape here and by promtool (the rules)."""
    import kubernetes_validate
    from kubernetes_validate.utils import SchemaNotFoundError

    version = kubernetes_validate.utils.latest_version()
    for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if doc["apiVersion"] == "monitoring.coreos.com/v1":
            assert doc["kind"] in {"PrometheusRule", "PodMonitor"}
            with pytest.raises(SchemaNotFoundError):
                kubernetes_validate.validate(doc, version, strict=True)
            continue
        kubernetes_validate.validate(doc, version, strict=True)  # raises ValidationError


def test_the_pod_monitor_selects_the_daemonsets_pods_and_port() -> None:
    doc = yaml.safe_load((DEPLOY / "kubernetes" / "podmonitor.yaml").read_text("utf-8"))
    labels = DAEMONSET["spec"]["template"]["metadata"]["labels"]
    assert doc["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (endpoint,) = doc["spec"]["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("metrics", "/metrics")


def test_a_broken_manifest_is_refused_by_the_validator() -> None:
    """The validator is no rubber stamp: a misspelt field and a wrong type fail."""
    import kubernetes_validate
    from kubernetes_validate.utils import ValidationError

    version = kubernetes_validate.utils.latest_version()
    broken = yaml.safe_load(yaml.safe_dump(DAEMONSET))
    broken["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(ValidationError):
        kubernetes_validate.validate(broken, version, strict=True)
    broken = yaml.safe_load(yaml.safe_dump(DAEMONSET))
    broken["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "x"
    with pytest.raises(ValidationError):
        kubernetes_validate.validate(broken, version, strict=True)


def rendered_labels() -> dict[str, set[str]]:
    """Labels per family of a /metrics answer: the run's families and serve's own."""
    text = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=0)
    state = State(
        interval_s=300,
        outcome=Outcome(text, ready=False, reason="", exit_code=1),
        finished_at=0.0,
        duration_s=1.0,
        running_since=5.0,
    )
    text = live_metrics(state, now=10.0) + text
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
    assert "gpudoctor_last_run_age_seconds" in exprs["GpudoctorMetricsStale"]
    assert "gpudoctor_run_in_progress_seconds" in exprs["GpudoctorRunHung"]
    assert "gpudoctor_ready" in exprs["GpudoctorNodeNotReady"]
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
