"""Container runtime checks: can Docker hand GPUs to containers (NVIDIA runtime or CDI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding, issue_about
from gpudoctor.facts_view import has_gpu
from gpudoctor.findings import Finding, Severity
from gpudoctor.wording import start_docker

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

OK, WARN, ERROR, NA, UNKNOWN = (
    Severity.OK,
    Severity.WARN,
    Severity.ERROR,
    Severity.NA,
    Severity.UNKNOWN,
)


def configure_runtime(facts: HostFacts, engine: str = "docker", options: str = "") -> str:
    """nvidia-ctk's command registering the NVIDIA runtime with `engine` (docker, containerd or
    crio, also its service name), then the engine's restart: with systemctl only under
    systemd."""
    command = f"sudo nvidia-ctk runtime configure --runtime={engine}{options}"
    if facts.platform.systemd is False:
        return f"`{command}`, then restart {'dockerd' if engine == 'docker' else engine}"
    return f"{command} && sudo systemctl restart {engine}"


def docker_present(facts: HostFacts) -> bool:
    r = facts.container_runtime
    return bool(r.docker_reachable) or bool(r.daemon_json_runtimes) or r.docker_version is not None


def docker_absence(facts: HostFacts) -> str:
    """Which part of Docker is missing, and how to start it, when no daemon answered."""
    r = facts.container_runtime
    if r.docker_reachable is None:
        # A pasted report never shows Docker; only `snapshot --no-docker` leaves it unasked.
        return "not in the report" if facts.report is not None else "Docker not asked (--no-docker)"
    if r.docker_client:
        why = issue_about(facts, "docker_reachable")
        because = f" ({why.removeprefix('runtime: ')})" if why else ""
        return (
            f"Docker client installed ({r.docker_client}) but its daemon does not answer"
            f"{because}: start it with {start_docker(facts.platform.systemd)}"
        )
    return "Docker not found (no daemon answering, no docker client on PATH)"


def nvidia_runtimes(facts: HostFacts) -> set[str]:
    r = facts.container_runtime
    return {n for n in (*r.runtimes, *r.daemon_json_runtimes) if n.startswith("nvidia")}


def check_docker_runtime(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    r = facts.container_runtime
    ev = [
        ("docker_reachable", r.docker_reachable),
        ("docker_version", r.docker_version),
        ("runtimes", r.runtimes),
        ("daemon_json_runtimes", r.daemon_json_runtimes),
        ("default_runtime", r.default_runtime),
        ("cdi_nvidia_devices", r.cdi_nvidia_devices),
    ]
    if facts.platform.container:
        return [finding("docker-nvidia-runtime", NA, "inside a container", evidence=ev)]
    if not docker_present(facts):
        return [finding("docker-nvidia-runtime", NA, docker_absence(facts), evidence=ev)]
    if not has_gpu(facts):
        return [finding("docker-nvidia-runtime", NA, "no GPU to hand to containers", evidence=ev)]
    nvidia = sorted(nvidia_runtimes(facts))
    if nvidia or r.cdi_nvidia_devices:
        how = [f"runtime {', '.join(nvidia)}"] if nvidia else []
        how += [f"{len(r.cdi_nvidia_devices)} CDI device(s)"] if r.cdi_nvidia_devices else []
        return [
            finding("docker-nvidia-runtime", OK, f"Docker has {' and '.join(how)}", evidence=ev)
        ]
    if r.docker_reachable is None and not r.runtimes:
        return [
            finding(
                "docker-nvidia-runtime", UNKNOWN, "Docker's runtimes could not be read", evidence=ev
            )
        ]
    return [
        finding(
            "docker-nvidia-runtime",
            ERROR,
            "Docker has neither the NVIDIA runtime nor NVIDIA CDI devices",
            detail='`docker run --gpus all` fails with \'could not select device driver "" '
            "with capabilities: [[gpu]]'",
            fix=configure_runtime(facts)
            if r.toolkit_tools
            else "install nvidia-container-toolkit, then " + configure_runtime(facts),
            evidence=ev,
        )
    ]


def check_toolkit(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    r = facts.container_runtime
    ev = [("toolkit_tools", r.toolkit_tools), ("toolkit_version", r.toolkit_version)]
    if facts.platform.container or not docker_present(facts) or not has_gpu(facts):
        return [finding("container-toolkit", NA, "no Docker GPU host", evidence=ev)]
    # its version, as a pasted report states it ("NVIDIA Container Toolkit CLI version 1.14.3",
    # a package list), says it is installed as surely as its tools on PATH do
    if r.toolkit_tools or r.toolkit_version:
        version = f" {r.toolkit_version}" if r.toolkit_version else ""
        return [finding("container-toolkit", OK, f"NVIDIA Container Toolkit{version}", evidence=ev)]
    return [
        finding(
            "container-toolkit",
            WARN,
            "NVIDIA Container Toolkit not installed (no nvidia-ctk on PATH)",
            fix="install nvidia-container-toolkit from NVIDIA's repository, then "
            + configure_runtime(facts),
            evidence=ev,
        )
    ]


CHECKS = (check_docker_runtime, check_toolkit)


def container_without_driver(code: str, facts: HostFacts) -> tuple[str, str] | None:
    """(cause, fix) of "CUDA driver version is insufficient" where the program ran in a
    container or pod and the report shows no driver: the CUDA runtime says the same when it
    finds no libcuda at all, which is a container started without the NVIDIA runtime (the
    driver's libraries are mounted from the host only by it: nvidia-docker#24, NVIDIA's answer;
    nvidia-docker#400, fixed by `--gpus all`). None elsewhere, and where the report shows the
    driver (then its CUDA is compared as everywhere)."""
    report = facts.report
    if code != "driver-insufficient" or report is None or facts.nvml.driver_version:
        return None
    inside = (
        facts.platform.container or facts.platform.kubernetes or "container-run" in report.named
    )
    if not inside:
        return None
    cause = (
        "cudaErrorInsufficientDriver (35): the CUDA runtime found no driver it can use. In a "
        "container or pod that is most often no driver at all: the host's driver libraries "
        "(libcuda) are mounted only by the NVIDIA container runtime, into containers that ask "
        "for GPUs; otherwise the host's driver is older than the program's CUDA"
    )
    fix = (
        "run `nvidia-smi` inside the container: if it is missing or fails, start the container "
        "with GPUs (`docker run --gpus all ...`; in Kubernetes a nvidia.com/gpu limit, with the "
        "nvidia runtime as the node's default or `runtimeClassName: nvidia`); if it works, "
        "compare its 'CUDA Version' with the program's CUDA and upgrade the host's driver or "
        "use a build for that CUDA"
    )
    return cause, fix
