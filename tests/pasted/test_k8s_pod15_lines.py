"""Round 15, Kubernetes pod side: the device plugin's MIG-permission line as people retype it.

go-nvlib's VisitMigProfiles (vendored by the device plugin) prints "error getting device memory
info: %v" for a MIG-capable GPU only, %v being NVML's "Insufficient Permissions"; the vendor's
prefix names the line even where the NVML word was misspelt by hand, and NVML's other
"Insufficient ..." answers stay out."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]

_CHAIN = (
    "error starting plugins: unable to add default resources to config: error visiting devices: "
    "error visiting device: error getting device memory info: "
)


def _codes(read: Read, text: str) -> list[str]:
    try:
        facts = read(text + "\n")
    except FactsError:
        return []
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize("word", ["Insufficient Permissions", "Insufficient Permisions"])
def test_memory_info_permission_line_is_mig_monitor_devices(read: Read, word: str) -> None:
    assert _codes(read, _CHAIN + word) == ["mig-monitor-devices"]


@pytest.mark.parametrize(
    "line",
    [
        # NVML's other "Insufficient" answers are not the MIG monitoring permission
        _CHAIN + "Insufficient Power",
        _CHAIN + "Insufficient Resources",
        # a misspelling without the vendor's prefix is not read as its line
        "nvml: Insufficient Permisions",
    ],
)
def test_other_insufficient_answers_are_not_mig_monitor_devices(read: Read, line: str) -> None:
    assert "mig-monitor-devices" not in _codes(read, line)


@pytest.mark.parametrize(
    ("text", "shared"),
    [
        ("We are sharing a single GPU instance across multiple pods.", True),
        ("Several pods use the same GPU on that node.", True),
        ("Both pods share the GPU of the g4dn node.", True),
        # GPU sharing by the device plugin's time-slicing, with no pods said to share one
        ("We set up GPU sharing with time-slicing, replicas: 4, on the Kubernetes node.", None),
        # a pod using a GPU is not pods sharing one
        ("The pods use the GPU through nvidia.com/gpu limits.", None),
    ],
)
def test_pods_said_to_share_a_gpu(read: Read, text: str, shared: bool | None) -> None:
    try:
        facts = read(text + "\n")
    except FactsError:
        facts = None
    assert (facts.platform.k8s_gpu_shared_said if facts else None) is shared


@pytest.mark.parametrize(
    "line",
    [
        "Every few days the nvidia device plugin marks one of the GPUs as unhealthy.",
        "The k8s device plugin reported GPU 2 is unhealthy and the node lost it from Allocatable.",
    ],
)
def test_unhealthy_gpu_told_in_words_is_named(read: Read, line: str) -> None:
    assert _codes(read, line) == ["device-plugin-gpu-unhealthy-said"]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the plugin's own lines stay its health check's entry
        (
            "nvidia-device-plugin-daemonset-x7k2p nvidia-device-plugin-ctr I0412 10:11:12.123456"
            "       1 server.go:279] 'nvidia.com/gpu' device marked unhealthy: "
            "GPU-8d3c2a1e-5f0b-2b7c-9e41-0c7a5d6b2f11",
            "device-plugin-health-unhealthy",
        ),
        # a healthy verdict, and unhealthy said of something other than a GPU
        ("The device plugin reports that every GPU is healthy on the Kubernetes node.", None),
        ("The device plugin pod shows the kubelet is unhealthy on that Kubernetes node.", None),
    ],
)
def test_unhealthy_near_misses(read: Read, line: str, code: str | None) -> None:
    codes = _codes(read, line)
    assert "device-plugin-gpu-unhealthy-said" not in codes
    if code:
        assert codes == [code]


_SCHED = "  Warning  FailedScheduling  2m  default-scheduler  "


@pytest.mark.parametrize(
    "line",
    [
        _SCHED + "0/3 nodes are available: 3 node(s) had untolerated taint(s). preemption: 0/3 "
        "nodes are available: 3 Preemption is not helpful for scheduling.",
        _SCHED + "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate.",
    ],
)
def test_every_node_tainted_without_its_name(read: Read, line: str) -> None:
    assert _codes(read, line) == ["k8s-untolerated-taints-unnamed"]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # a reason beside the taints: the GPU shortage is the one named
        (
            _SCHED + "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 "
            "Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption "
            "victims found for incoming pod.",
            "k8s-insufficient-gpu",
        ),
        # the taint named: the entries that read it
        (
            _SCHED + "0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: "
            "present}.",
            "k8s-gpu-taint-not-tolerated",
        ),
    ],
)
def test_taint_near_misses(read: Read, line: str, code: str) -> None:
    codes = _codes(read, line)
    assert "k8s-untolerated-taints-unnamed" not in codes
    assert code in codes


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "  Warning  FailedMount  9s (x7 over 41s)  kubelet  MountVolume.SetUp failed for "
            'volume "available-configs" : configmap "plugin-configs" not found',
            "device-plugin-configmap-missing",
        ),
        (
            "Use 'config.name' ... Only one of 'config.name' or 'config.map' should ever be set "
            "for a given deployment.",
            "device-plugin-helm-config-values",
        ),
    ],
)
def test_device_plugin_config_deployment_lines(read: Read, line: str, code: str) -> None:
    assert _codes(read, line) == [code]


def test_another_volumes_missing_configmap_is_not_the_plugins(read: Read) -> None:
    line = (
        "  Warning  FailedMount  9s  kubelet  MountVolume.SetUp failed for volume "
        '"config-volume" : configmap "app-settings" not found'
    )
    assert "device-plugin-configmap-missing" not in _codes(read, line)
