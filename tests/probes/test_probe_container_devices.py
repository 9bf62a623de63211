"""probes/container_devices.py on fake root trees: cgroup version and drivers, the NVIDIA
runtime's mode, /dev/char links (real character device nodes, so root only) and CDI specs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpudoctor.probes.container_devices import (
    cdi_specs,
    cgroup_version,
    containerd_systemd_cgroup,
    dev_char_missing,
    docker_cgroup_driver,
    read_spec,
    runtime_mode,
)

# The shape `nvidia-ctk cdi generate` writes (trimmed): devices by index and MIG "GPU:MIG",
# driver libraries mounted from the host, the host driver version in a hook argument.
SPEC = """---
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
- name: "0:1"
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia-caps/nvidia-cap21
- name: GPU-4bd2a5d0-6a4b-1a2f-9c2e-0123456789ab
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
containerEdits:
  hooks:
  - hookName: createContainer
    path: /usr/bin/nvidia-cdi-hook
    args:
    - nvidia-cdi-hook
    - enable-cuda-compat
    - --host-driver-version=550.54.15
  mounts:
  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15
    containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15
  - hostPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15
    containerPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15
  - hostPath: /usr/bin/nvidia-smi
    containerPath: /usr/bin/nvidia-smi
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_cgroup_versions(tmp_path: Path) -> None:
    assert cgroup_version(tmp_path) is None
    write(tmp_path, "sys/fs/cgroup/devices/tasks", "")
    assert cgroup_version(tmp_path) == 1
    write(tmp_path, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n")
    assert cgroup_version(tmp_path) == 2


def test_cgroup_drivers(tmp_path: Path) -> None:
    assert docker_cgroup_driver(tmp_path, {"CgroupDriver": "systemd"}) == "systemd"
    assert docker_cgroup_driver(tmp_path, {}) is None
    write(
        tmp_path,
        "etc/docker/daemon.json",
        json.dumps({"exec-opts": ["native.cgroupdriver=cgroupfs"]}),
    )
    assert docker_cgroup_driver(tmp_path, {}) == "cgroupfs"
    assert containerd_systemd_cgroup(tmp_path) is None
    write(tmp_path, "etc/containerd/config.toml", "[plugins]\n  SystemdCgroup = true\n")
    assert containerd_systemd_cgroup(tmp_path) is True
    write(tmp_path, "etc/containerd/config.toml", "version = 2\n")
    assert containerd_systemd_cgroup(tmp_path) is False


def test_runtime_mode(tmp_path: Path) -> None:
    assert runtime_mode(tmp_path) is None
    write(tmp_path, "etc/nvidia-container-runtime/config.toml", "[nvidia-container-runtime]\n")
    assert runtime_mode(tmp_path) == "auto"
    write(
        tmp_path,
        "etc/nvidia-container-runtime/config.toml",
        '[nvidia-container-runtime]\nmode = "cdi"\n',
    )
    assert runtime_mode(tmp_path) == "cdi"


@pytest.mark.skipif(os.geteuid() != 0, reason="making character device nodes needs root")
def test_dev_char_links(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    assert dev_char_missing(tmp_path) is None  # no node: nothing examined
    os.mknod(dev / "nvidia0", 0o666 | 0o020000, os.makedev(195, 0))
    os.mknod(dev / "nvidiactl", 0o666 | 0o020000, os.makedev(195, 255))
    (dev / "nvidia-modeset-not-a-device").write_text("")
    (dev / "char").mkdir()
    os.symlink("../nvidia0", dev / "char" / "195:0")
    assert dev_char_missing(tmp_path) == ("/dev/nvidiactl",)
    os.symlink("../nvidiactl", dev / "char" / "195:255")
    assert dev_char_missing(tmp_path) == ()


def test_a_generated_spec(tmp_path: Path) -> None:
    write(tmp_path, "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "")
    spec = read_spec(tmp_path, "/etc/cdi/nvidia.yaml", SPEC)
    assert spec is not None
    assert spec.driver_version == "550.54.15"
    assert spec.devices == ("0", "0:1", "<uuid>", "all")  # a UUID is not recorded
    assert spec.libraries == (
        "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
    )
    assert spec.libraries_missing == ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",)


def test_driver_version_from_library_names_and_json_specs(tmp_path: Path) -> None:
    no_hook = SPEC.replace("    - --host-driver-version=550.54.15\n", "")
    assert read_spec(tmp_path, "/etc/cdi/nvidia.yaml", no_hook).driver_version == "550.54.15"  # type: ignore[union-attr]
    as_json = json.dumps(
        {
            "cdiVersion": "0.5.0",
            "kind": "nvidia.com/gpu",
            "devices": [{"name": "0", "containerEdits": {}}],
            "containerEdits": {
                "mounts": [{"hostPath": "/usr/lib64/libcuda.so.570.86.15", "containerPath": "x"}]
            },
        }
    )
    write(tmp_path, "var/run/cdi/nvidia.json", as_json)
    write(tmp_path, "etc/cdi/other.yaml", "kind: vendor.example/thing\ndevices: []\n")
    (spec,) = cdi_specs(tmp_path, [])
    assert (spec.path, spec.driver_version, spec.devices) == (
        "/var/run/cdi/nvidia.json",
        "570.86.15",
        ("0",),
    )
