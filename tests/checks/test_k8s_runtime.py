"""k8s-nvidia-runtime: a Kubernetes node's containerd / CRI-O config that defines the NVIDIA
runtime without making it the default, with no pod asking for it by RuntimeClass (pasted
configs, `containerd config dump`, and the live host's files)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor import cri_config
from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.probes.runtime import probe_runtime, read_cri_config
from tests.support.probe_fakes import FakeRunner

K3S_NOT_DEFAULT = """\
# grep nvidia /var/lib/rancher/k3s/agent/etc/containerd/config.toml
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia"]
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia".options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
"""
CONTAINERD_V2_DEFAULT = """\
version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
"""
CONTAINERD_V3_RUNC = """\
version = 3
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"
  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]
  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
    BinaryName = "/usr/bin/nvidia-container-runtime"
"""
CRIO_NOT_DEFAULT = """\
[crio.runtime]
  [crio.runtime.runtimes.nvidia]
    runtime_path = "/usr/bin/nvidia-container-runtime"
    runtime_type = "oci"
"""
CRIO_DEFAULT = '[crio]\n  [crio.runtime]\n    default_runtime = "nvidia"\n' + CRIO_NOT_DEFAULT[15:]


def _finding(text: str, matrix: Matrix) -> Finding:
    facts = read_report(text, "paste.txt", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "k8s-nvidia-runtime"]
    return found


def test_the_reader_names_runtimes_and_default() -> None:
    k3s = cri_config.read(K3S_NOT_DEFAULT)
    assert k3s == cri_config.CriConfig("containerd", ("nvidia",), None)
    v2 = cri_config.read(CONTAINERD_V2_DEFAULT)
    assert v2 == cri_config.CriConfig("containerd", ("nvidia", "runc"), "nvidia")
    v3 = cri_config.read(CONTAINERD_V3_RUNC)
    assert v3 == cri_config.CriConfig("containerd", ("nvidia", "runc"), "runc")
    assert cri_config.read(CRIO_DEFAULT) == cri_config.CriConfig("cri-o", ("nvidia",), "nvidia")
    # near misses: Docker's daemon.json and prose about containerd are no CRI config
    assert cri_config.read('{"default-runtime": "nvidia", "runtimes": {"nvidia": {}}}') is None
    assert cri_config.read("I restarted containerd and the runtime still fails\n") is None


def test_patterns_pass_the_backtracking_check() -> None:
    for rx in (
        cri_config._CONTAINERD_RUNTIME,
        cri_config._CONTAINERD_DEFAULT,
        cri_config._CRIO_RUNTIME,
        cri_config._CRIO_DEFAULT,
        cri_config._VERSION,
    ):
        assert problem(rx.pattern) is None, rx.pattern


def test_pasted_k3s_config_without_nvidia_default_warns_with_the_fix(matrix: Matrix) -> None:
    found = _finding(K3S_NOT_DEFAULT, matrix)
    assert found.severity is Severity.WARN
    assert "default runtime is not set" in found.title
    # K3s writes config.toml again at each start: the default goes through K3s itself
    assert "`default-runtime: nvidia` in /etc/rancher/k3s/config.yaml" in found.fix
    assert "k3s/agent/etc/containerd/config.toml.tmpl" in found.fix
    assert "systemctl restart k3s" in found.fix
    assert "--set-as-default" not in found.fix
    assert "runtimeClassName: nvidia" in found.fix
    rke2 = _finding(K3S_NOT_DEFAULT.replace("k3s", "rke2"), matrix)
    assert "/etc/rancher/rke2/config.yaml" in rke2.fix
    assert "rke2-agent" in rke2.fix
    # a node's own containerd: nvidia-ctk's command
    found = _finding(CONTAINERD_V3_RUNC, matrix)
    assert found.severity is Severity.WARN
    assert "'runc'" in found.title
    assert "nvidia-ctk runtime configure --runtime=containerd --set-as-default" in found.fix
    assert "systemctl restart containerd" in found.fix
    assert "/etc/rancher" not in found.fix


def test_microk8s_config_gets_its_template(matrix: Matrix) -> None:
    text = "$ cat /var/snap/microk8s/current/args/containerd-template.toml\n" + CONTAINERD_V3_RUNC
    found = _finding(text, matrix)
    assert found.severity is Severity.WARN
    assert 'default_runtime_name = "nvidia" in /var/snap/microk8s/current/args/' in found.fix
    assert "snap restart microk8s" in found.fix
    assert "--set-as-default" not in found.fix


def test_crio_gets_its_own_command(matrix: Matrix) -> None:
    found = _finding(CRIO_NOT_DEFAULT, matrix)
    assert found.severity is Severity.WARN
    assert "--runtime=crio --set-as-default" in found.fix
    assert "systemctl restart crio" in found.fix


def test_near_misses_do_not_warn(matrix: Matrix) -> None:
    assert _finding(CONTAINERD_V2_DEFAULT, matrix).severity is Severity.OK
    assert _finding(CRIO_DEFAULT, matrix).severity is Severity.OK
    # the pods ask for the NVIDIA runtime themselves
    pod = "spec:\n  runtimeClassName: nvidia\n  containers:\n  - name: cuda\n"
    assert _finding(K3S_NOT_DEFAULT + pod, matrix).severity is Severity.OK
    # a RuntimeClass of another name does not help
    other = "spec:\n  runtimeClassName: kata\n"
    assert _finding(K3S_NOT_DEFAULT + other, matrix).severity is Severity.WARN
    # no NVIDIA runtime in the config at all: not this check's question
    plain = CONTAINERD_V3_RUNC.replace("nvidia", "kata")
    assert _finding(plain, matrix).severity is Severity.NA


def test_live_host_files(tmp_path: Path, matrix: Matrix) -> None:
    assert read_cri_config(tmp_path) is None
    k3s = tmp_path / "var/lib/rancher/k3s/agent/etc/containerd/config.toml"
    k3s.parent.mkdir(parents=True)
    k3s.write_text(K3S_NOT_DEFAULT)
    assert read_cri_config(tmp_path) == cri_config.CriConfig("containerd", ("nvidia",), None)
    # CRI-O: a drop-in overrides the main file's default
    crio = tmp_path / "crio"
    (crio / "etc/crio/crio.conf.d").mkdir(parents=True)
    (crio / "etc/crio/crio.conf").write_text('[crio.runtime]\n  default_runtime = "crun"\n')
    (crio / "etc/crio/crio.conf.d/99-nvidia.conf").write_text(CRIO_DEFAULT)
    assert read_cri_config(crio) == cri_config.CriConfig("cri-o", ("nvidia",), "nvidia")


# a version-3 (containerd 2.x) file with the NVIDIA runtime copied from a version-2 guide
CONTAINERD_V3_MISPLACED = """\
version = 3

[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "nvidia"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
"""


def test_a_version_3_config_reads_no_runtime_at_the_version_2_place() -> None:
    found = cri_config.read(CONTAINERD_V3_MISPLACED)
    assert found == cri_config.CriConfig("containerd", ("runc",), None, None, ("nvidia",))
    # the same tables in a version-2 file (or one with no version) are read
    v2 = cri_config.read(CONTAINERD_V3_MISPLACED.replace("version = 3", "version = 2"))
    assert v2 == cri_config.CriConfig("containerd", ("nvidia", "runc"), "nvidia")
    unversioned = cri_config.read(CONTAINERD_V3_MISPLACED.replace("version = 3\n", ""))
    assert unversioned is not None
    assert unversioned.ignored_runtimes == ()
    # a version-3 file with the runtime in its own place ignores nothing
    v3 = cri_config.read(CONTAINERD_V3_RUNC)
    assert v3 is not None
    assert v3.ignored_runtimes == ()


def test_a_runtime_containerd_2_does_not_read_warns_with_the_place(matrix: Matrix) -> None:
    found = _finding("$ cat /etc/containerd/config.toml\n" + CONTAINERD_V3_MISPLACED, matrix)
    assert found.severity is Severity.WARN
    assert "version 3" in found.title
    assert "the nvidia runtime" in found.title
    assert "io.containerd.cri.v1.runtime" in found.detail
    assert "nvidia-ctk runtime configure --runtime=containerd" in found.fix
    assert 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]' in found.fix
    # moved to the version-3 place, it is the default runtime and all is well
    moved = CONTAINERD_V3_MISPLACED.replace(
        "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"
    )
    assert _finding("$ cat /etc/containerd/config.toml\n" + moved, matrix).severity is Severity.OK


def test_the_probe_records_a_runtime_containerd_2_does_not_read(tmp_path: Path) -> None:
    conf = tmp_path / "etc/containerd/config.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text(CONTAINERD_V3_MISPLACED)
    facts, _ = probe_runtime(tmp_path, {"PATH": ""}, FakeRunner({}), None)
    assert (facts.cri_runtimes, facts.cri_ignored_runtimes) == (("runc",), ("nvidia",))


def test_live_facts_without_a_config_are_not_applicable(matrix: Matrix) -> None:
    run = run_checks(HostFacts(), matrix)
    (found,) = [f for f in run.findings if f.code == "k8s-nvidia-runtime"]
    assert found.severity is Severity.NA


def test_the_runtime_probe_records_the_config(tmp_path: Path) -> None:
    conf = tmp_path / "etc/containerd/config.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text(CONTAINERD_V3_RUNC)
    facts, _ = probe_runtime(tmp_path, {"PATH": ""}, FakeRunner({}), None)
    assert (facts.cri_engine, facts.cri_runtimes, facts.cri_default_runtime) == (
        "containerd",
        ("nvidia", "runc"),
        "runc",
    )
    assert facts.runtime_class_nvidia is None  # the live probe sees no pod specs


DAEMON_JSON_NO_DEFAULT = """\
$ cat /etc/docker/daemon.json
{
    "runtimes": {
        "nvidia": {
            "path": "/usr/bin/nvidia-container-runtime",
            "runtimeArgs": []
        }
    }
}
"""
NODES_ON_DOCKER = """\
NAME      STATUS   ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION      CONTAINER-RUNTIME
gpu-01    Ready    <none>   12d   v1.21.4   10.0.0.12     <none>        Ubuntu 20.04.3 LTS   5.4.0-88-generic    docker://20.10.8
"""  # noqa: E501


def _with_default(text: str) -> str:
    default = '{\n    "default-runtime": "nvidia",\n    "runtimes"'
    return text.replace('{\n    "runtimes"', default)


def test_a_daemon_json_without_a_default_leaves_runc(matrix: Matrix) -> None:
    facts = read_report(DAEMON_JSON_NO_DEFAULT, "paste.txt", matrix.architectures)
    assert facts.container_runtime.default_runtime == "runc"
    named = _with_default(DAEMON_JSON_NO_DEFAULT)
    facts = read_report(named, "paste.txt", matrix.architectures)
    assert facts.container_runtime.default_runtime == "nvidia"


def test_a_node_on_docker_without_nvidia_as_default_warns(matrix: Matrix) -> None:
    found = _finding(NODES_ON_DOCKER + DAEMON_JSON_NO_DEFAULT, matrix)
    assert found.severity is Severity.WARN
    assert "default runtime is runc" in found.title
    assert "--runtime=docker --set-as-default" in found.fix


def test_near_misses_of_the_docker_engine(matrix: Matrix) -> None:
    # nvidia is Docker's default: fine
    named = _with_default(DAEMON_JSON_NO_DEFAULT)
    assert _finding(NODES_ON_DOCKER + named, matrix).severity is Severity.OK
    # the kubelet runs on containerd: Docker's default runtime is not the pods'
    on_containerd = NODES_ON_DOCKER.replace("docker://20.10.8", "containerd://1.6.8")
    assert _finding(on_containerd + DAEMON_JSON_NO_DEFAULT, matrix).severity is Severity.NA
