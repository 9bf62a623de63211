"""Containers that lose their GPUs or get the wrong ones: the /dev/char links systemd needs, CDI
specs generated for another driver or MIG layout, and cgroup v2 with a toolkit that predates it.

Sources: NVIDIA's notice "Containers losing access to GPUs with error: Failed to initialize
NVML: Unknown Error" (nvidia-container-toolkit issue #48: the systemd cgroup driver re-applies
device rules on `systemctl daemon-reload` from /dev/char; fix `nvidia-ctk system
create-dev-char-symlinks --create-all` and a udev rule, toolkit 1.12.0 or newer); the CDI
generate command of the container toolkit (`nvidia-ctk cdi generate`); cgroup v2 support came
with libnvidia-container 1.8.0 (NVIDIA's release announcement in libnvidia-container issue #111).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.runtime import docker_present, nvidia_runtimes
from gpudoctor.facts_view import has_gpu, live_gpus
from gpudoctor.findings import ERROR, NA, OK, UNKNOWN, Finding
from gpudoctor.versions import release

if TYPE_CHECKING:
    from gpudoctor.facts import CdiSpec, HostFacts
    from gpudoctor.matrix.model import Matrix

DEV_CHAR_FIX = (
    "sudo nvidia-ctk system create-dev-char-symlinks --create-all; and so that it holds after "
    "every boot, the udev rule /lib/udev/rules.d/71-nvidia-dev-char.rules: "
    'ACTION=="add", DEVPATH=="/bus/pci/drivers/nvidia", '
    'RUN+="/usr/bin/nvidia-ctk system create-dev-char-symlinks --create-all"'
)
CDI_FIX = "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"
CGROUP_V2_TOOLKIT = (1, 8, 0)


def uses_systemd_cgroups(facts: HostFacts) -> bool:
    d = facts.container_runtime.devices
    return d.docker_cgroup_driver == "systemd" or d.containerd_systemd_cgroup is True


def legacy_injection(facts: HostFacts) -> bool:
    """GPUs reach containers through the NVIDIA runtime's hook rather than CDI: the runtime is
    registered (Docker) or configured (its config file), in a mode other than "cdi"."""
    d = facts.container_runtime.devices
    registered = bool(nvidia_runtimes(facts)) or d.runtime_mode is not None
    return registered and d.runtime_mode != "cdi"


def _container_host(facts: HostFacts) -> bool:
    d = facts.container_runtime.devices
    engine = docker_present(facts) or d.containerd_systemd_cgroup is not None
    return not facts.platform.container and has_gpu(facts) and engine


def check_dev_char_links(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    d = facts.container_runtime.devices
    ev = [
        ("docker_cgroup_driver", d.docker_cgroup_driver),
        ("containerd_systemd_cgroup", d.containerd_systemd_cgroup),
        ("runtime_mode", d.runtime_mode),
        ("dev_char_missing", d.dev_char_missing),
    ]
    if not _container_host(facts):
        return [finding("dev-char-links", NA, "no container engine with GPUs here", evidence=ev)]
    if not uses_systemd_cgroups(facts) or not legacy_injection(facts):
        why = "no systemd cgroup driver" if not uses_systemd_cgroups(facts) else "CDI injection"
        return [finding("dev-char-links", NA, f"not affected ({why})", evidence=ev)]
    if d.dev_char_missing is None:
        return [finding("dev-char-links", UNKNOWN, "NVIDIA device nodes not examined", evidence=ev)]
    if d.dev_char_missing:
        return [
            finding(
                "dev-char-links",
                ERROR,
                f"{len(d.dev_char_missing)} NVIDIA device node(s) without a /dev/char link: "
                "containers lose their GPUs on the next `systemctl daemon-reload`",
                detail="With the systemd cgroup driver, systemd re-applies each container's "
                "device rules from /dev/char; the NVIDIA nodes are not there, so running "
                "containers fail with 'Failed to initialize NVML: Unknown Error' until "
                "restarted: " + ", ".join(d.dev_char_missing),
                fix=DEV_CHAR_FIX,
                evidence=ev,
            )
        ]
    return [finding("dev-char-links", OK, "every NVIDIA device node has its /dev/char link")]


def check_cdi_specs(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    specs = facts.container_runtime.devices.cdi_specs
    if not specs:
        return [finding("cdi-spec-current", NA, "no NVIDIA CDI spec")]
    return [_judge_spec(facts, spec) for spec in specs]


def _judge_spec(facts: HostFacts, spec: CdiSpec) -> Finding:
    loaded = facts.kernel.nvidia_module_version or facts.nvml.driver_version
    ev = [("spec_driver", spec.driver_version), ("loaded_driver", loaded)]
    problems = []
    if spec.driver_version and loaded and spec.driver_version != loaded:
        problems.append(f"generated for driver {spec.driver_version}, {loaded} is loaded")
    if spec.libraries_missing:
        shown = ", ".join(spec.libraries_missing[:3])
        more = (
            f" and {len(spec.libraries_missing) - 3} more"
            if len(spec.libraries_missing) > 3
            else ""
        )
        problems.append(f"mounts libraries that are gone: {shown}{more}")
    gone = _missing_mig(facts, spec)
    if gone:
        problems.append(f"names MIG devices that no longer exist: {', '.join(gone)}")
    if problems:
        return finding(
            "cdi-spec-current",
            ERROR,
            f"{spec.path} is stale: " + "; ".join(problems),
            detail="A CDI spec is generated for one driver and one MIG layout; after a driver, "
            "kernel or MIG change, containers that ask for its devices fail to start or get "
            "other devices than they asked for.",
            fix=CDI_FIX + " (and again after every driver or MIG change)",
            evidence=ev,
            subject=spec.path,
        )
    return finding(
        "cdi-spec-current",
        OK,
        f"{spec.path} matches the loaded driver",
        evidence=ev,
        subject=spec.path,
    )


def _missing_mig(facts: HostFacts, spec: CdiSpec) -> list[str]:
    """Spec devices "GPU:MIG" (nvidia-ctk's index names) that the GPUs no longer have."""
    gpus = {g.index: g for g in live_gpus(facts)}
    if not gpus:
        return []
    gone = []
    for name in spec.devices:
        gpu_text, sep, mig_text = name.partition(":")
        if not sep or not gpu_text.isdecimal() or not mig_text.isdecimal():
            continue
        gpu = gpus.get(int(gpu_text))
        if gpu is None or gpu.mig_mode_current is False or int(mig_text) >= len(gpu.mig_devices):
            gone.append(name)
    return gone


def check_cgroup_v2_toolkit(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    r = facts.container_runtime
    ev = [("cgroup_version", r.devices.cgroup_version), ("toolkit_version", r.toolkit_version)]
    if not _container_host(facts) or not r.toolkit_tools:
        return [finding("cgroup-v2-toolkit", NA, "no NVIDIA container toolkit here", evidence=ev)]
    if r.devices.cgroup_version != 2:
        if r.devices.cgroup_version is None:  # older snapshots and pasted reports lack it
            return [finding("cgroup-v2-toolkit", NA, "cgroup version not recorded", evidence=ev)]
        return [finding("cgroup-v2-toolkit", NA, "cgroup v1: not affected", evidence=ev)]
    have = release(r.toolkit_version)
    if have is None:
        return [finding("cgroup-v2-toolkit", UNKNOWN, "toolkit version not read", evidence=ev)]
    if have < CGROUP_V2_TOOLKIT:
        return [
            finding(
                "cgroup-v2-toolkit",
                ERROR,
                f"cgroup v2 with NVIDIA Container Toolkit {r.toolkit_version}, older than 1.8.0",
                detail="libnvidia-container supports cgroup v2 from 1.8.0 on; before it every "
                "GPU container fails with 'nvidia-container-cli: container error: cgroup "
                "subsystem devices not found'.",
                fix="upgrade nvidia-container-toolkit and libnvidia-container1 to 1.8.0 or newer "
                "from NVIDIA's repository, then restart the container engine",
                evidence=ev,
            )
        ]
    return [
        finding("cgroup-v2-toolkit", OK, f"cgroup v2 with toolkit {r.toolkit_version}", evidence=ev)
    ]


CHECKS = (check_dev_char_links, check_cdi_specs, check_cgroup_v2_toolkit)
