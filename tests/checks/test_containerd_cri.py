"""containerd-cri-disabled: containerd's `disabled_plugins` names its CRI plugin on a Kubernetes
node (fatal for the kubelet), read from a pasted config or the live host's file; harmless, and
no alarm, without Kubernetes or on K3s/RKE2/MicroK8s, which run a containerd of their own. And
the kubelet's own line when no CRI service answers."""

from __future__ import annotations

from pathlib import Path

from gpudoctor import cri_config
from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.probes.runtime import probe_runtime
from tests.support.pasted_findings import error_lines, warn_or_error
from tests.support.probe_fakes import FakeRunner

# the config Docker's containerd.io package installs (its comment lines cut)
DOCKER_PACKAGE = """\
$ cat /etc/containerd/config.toml
disabled_plugins = ["cri"]

#root = "/var/lib/containerd"
#state = "/run/containerd"
"""
KUBELET = (
    'kubelet[7826]: E0906 20:35:22.866810    7826 run.go:72] "command failed" err="failed to run '
    "Kubelet: validate service connection: validate CRI v1 runtime API for endpoint "
    '\\"unix:///run/containerd/containerd.sock\\": rpc error: code = Unimplemented desc = '
    'unknown service runtime.v1.RuntimeService"\n'
)
KUBEADM_NODE = "Kubernetes v1.29.3 installed with kubeadm on Ubuntu 22.04, one node.\n"


def _finding(text: str, matrix: Matrix) -> Finding:
    facts = read_report(text, "paste.txt", matrix.architectures)
    (found,) = [
        f for f in run_checks(facts, matrix).findings if f.code == "containerd-cri-disabled"
    ]
    return found


def test_the_reader_tells_a_disabled_cri_plugin() -> None:
    assert cri_config.cri_disabled(DOCKER_PACKAGE) is True
    assert cri_config.cri_disabled("disabled_plugins = ['io.containerd.grpc.v1.cri']") is True
    assert cri_config.cri_disabled('disabled_plugins = ["io.containerd.cri.v1.images"]') is True
    # near misses: an empty list, other plugins, a CRI option, no such line
    assert cri_config.cri_disabled("disabled_plugins = []") is False
    assert (
        cri_config.cri_disabled('disabled_plugins = ["io.containerd.snapshotter.v1.zfs"]') is False
    )
    assert (
        cri_config.cri_disabled('[plugins."io.containerd.grpc.v1.cri"]\n  disable_cgroup = true')
        is None
    )


def test_fatal_on_a_kubernetes_node(matrix: Matrix) -> None:
    found = _finding(KUBEADM_NODE + DOCKER_PACKAGE, matrix)
    assert found.severity is Severity.ERROR
    assert "disabled_plugins" in found.fix


def test_no_alarm_without_kubernetes_or_with_an_own_containerd(matrix: Matrix) -> None:
    docker = "Docker version 26.1.3, build b72abbb\n" + DOCKER_PACKAGE
    assert _finding(docker, matrix).severity is Severity.OK
    facts = read_report(docker, "paste.txt", matrix.architectures)
    assert warn_or_error(list(run_checks(facts, matrix).findings)) == []
    k3s = "k3s version v1.28.5+k3s1 (5b2d1271)\n" + DOCKER_PACKAGE
    assert _finding(k3s, matrix).severity is Severity.OK
    # a Kubernetes node whose list leaves CRI on
    enabled = KUBEADM_NODE + "disabled_plugins = []\n"
    assert _finding(enabled, matrix).severity is Severity.OK
    assert _finding(KUBEADM_NODE, matrix).severity is Severity.NA


def test_the_live_probe_reads_the_system_config(tmp_path: Path, matrix: Matrix) -> None:
    conf = tmp_path / "etc/containerd/config.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text(DOCKER_PACKAGE)
    facts, _ = probe_runtime(tmp_path, {"PATH": ""}, FakeRunner({}), None)
    assert facts.cri_plugin_disabled is True
    # the live host is no Kubernetes node it knows of: no alarm
    run = run_checks(HostFacts(container_runtime=facts), matrix)
    (found,) = [f for f in run.findings if f.code == "containerd-cri-disabled"]
    assert found.severity is Severity.OK


def test_the_kubelet_line_names_the_cause(matrix: Matrix) -> None:
    facts = read_report(KUBELET, "paste.txt", matrix.architectures)
    (line,) = error_lines(list(run_checks(facts, matrix).findings), "kubelet-no-cri-service")
    assert "disabled_plugins" in line.fix
    assert "runtime.v1.RuntimeService" in line.title + line.detail
    # near miss: the device plugin's registration service is another signature's line
    other = (
        "Could not register device plugin: rpc error: code = Unimplemented desc = unknown "
        "service v1beta1.Registration\n"
    )
    facts = read_report(other, "paste.txt", matrix.architectures)
    assert error_lines(list(run_checks(facts, matrix).findings), "kubelet-no-cri-service") == []
