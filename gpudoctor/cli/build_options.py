"""Options shared by `gpudoctor render` and `gpudoctor build`: row resolution and image options.

Only typer here (the `--help` budget); the target host's facts are read lazily.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpudoctor.errors import EnvironmentUnavailable, UsageError

if TYPE_CHECKING:
    from gpudoctor.build.spec import BuildOptions
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import ResolveRequest

FRAMEWORKS = ("pytorch", "tensorflow")
FLAVORS = ("runtime", "devel")

FrameworkOpt = Annotated[
    str | None, typer.Option("--framework", metavar="NAME", help="pytorch or tensorflow.")
]
VersionOpt = Annotated[
    str | None,
    typer.Option("--version", metavar="SPEC", help='Framework version ("2.5") or specifier.'),
]
CudaOpt = Annotated[
    str | None, typer.Option("--cuda", metavar="SPEC", help='CUDA version ("12.4") or specifier.')
]
PythonOpt = Annotated[
    str | None, typer.Option("--python", metavar="X.Y", help="Python version in the image.")
]
FlavorOpt = Annotated[
    str | None, typer.Option("--flavor", metavar="FLAVOR", help="runtime (default) or devel.")
]
DistroOpt = Annotated[
    str | None, typer.Option("--distro", metavar="DISTRO", help="Base distro, e.g. ubuntu22.04.")
]
DriverOpt = Annotated[
    str | None,
    typer.Option("--driver", metavar="VERSION", help="Target host's driver: only CUDA it runs."),
]
ForHostOpt = Annotated[
    bool,
    typer.Option("--for-host", help="Target this host: read its driver and GPUs (NVML)."),
]
FromOpt = Annotated[
    Path | None,
    typer.Option(
        "--from", metavar="HOST.JSON", help="Target a recorded host (gpudoctor snapshot)."
    ),
]
AllowUnverifiedOpt = Annotated[
    bool, typer.Option("--allow-unverified", help="Consider rows marked verified = false.")
]
PipOpt = Annotated[
    list[str] | None,
    typer.Option("--pip", metavar="REQ", help="Extra pip requirement (repeatable), e.g. numpy<2."),
]
BaseImageOpt = Annotated[
    str | None,
    typer.Option("--base-image", metavar="REF", help="Use this base image (a mirror) instead."),
]
IndexUrlOpt = Annotated[
    str | None,
    typer.Option("--index-url", metavar="URL", help="Framework pip index (a mirror) instead."),
]
WheelhouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--wheelhouse", metavar="DIR", help="Install offline from these wheels (no index)."
    ),
]
TagOpt = Annotated[
    str | None,
    typer.Option(
        "--tag", "-t", metavar="NAME:TAG", help="Image tag (default gpudoctor/FW:VER-cuXY-pyX.Y)."
    ),
]
PlatformOpt = Annotated[
    str | None,
    typer.Option(
        "--platform",
        metavar="OS/ARCH",
        help="linux/amd64 or linux/arm64 (default: the target host's, else the daemon's).",
    ),
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write the Dockerfile here.")
]


def resolve_request(
    *,
    framework: str | None,
    version: str | None,
    cuda: str | None,
    python: str | None,
    flavor: str | None,
    distro: str | None,
    driver: str | None,
    for_host: bool,
    from_file: Path | None,
    allow_unverified: bool,
    platform: str | None = None,
) -> ResolveRequest:
    """The ResolveRequest the flags describe; a target host supplies driver and GPUs."""
    from gpudoctor.build.validate import python_version
    from gpudoctor.cli.common import check_choice
    from gpudoctor.matrix.model import ResolveRequest

    if framework is None:
        raise UsageError("--framework is required", hint="use --framework pytorch")
    check_choice("--framework", framework, FRAMEWORKS)
    if flavor is not None:
        check_choice("--flavor", flavor, FLAVORS)
    if python is not None:
        python_version(python)
    host_driver, capabilities, host_machine = target_host(for_host, from_file)
    machine = platform_machine(platform)
    if machine is not None and host_machine is not None and machine != host_machine:
        raise UsageError(
            f"--platform {platform} contradicts the target host's machine {host_machine}",
            hint="drop --platform: the image is built for the target host's platform",
        )
    if driver is not None and host_driver is not None and driver != host_driver:
        raise UsageError(
            f"--driver {driver} contradicts the target host's driver {host_driver}",
            hint="give either --driver or --for-host/--from",
        )
    return ResolveRequest(
        framework=framework,
        version=version,
        cuda=cuda,
        python=python,
        driver=driver or host_driver,
        compute_capabilities=capabilities,
        flavor=flavor,
        distro=distro,
        allow_unverified=allow_unverified,
        machine=machine or host_machine,
    )


def platform_machine(platform: str | None) -> str | None:
    """The machine of `--platform` ("linux/arm64" -> "aarch64"); UsageError for anything else."""
    from gpudoctor.matrix.platforms import DOCKER_PLATFORM, machine_of

    if platform is None:
        return None
    machine = machine_of(platform) if platform.startswith("linux/") else None
    if machine is None:
        raise UsageError(
            f"--platform {platform!r} is not one of: {', '.join(DOCKER_PLATFORM.values())}",
            hint="use --platform linux/arm64 (Grace, DGX Spark) or --platform linux/amd64",
        )
    return machine


def target_host(
    for_host: bool, from_file: Path | None
) -> tuple[str | None, tuple[str, ...], str | None]:
    """(driver, compute capabilities, machine) of the target host; (None, (), None) when none
    is named."""
    if for_host and from_file is not None:
        raise UsageError("--for-host and --from both name a target host", hint="give one")
    if from_file is not None:
        from gpudoctor.facts_json import load

        return host_target(load(from_file), str(from_file))
    if for_host:
        from gpudoctor.probes import collect_facts

        return host_target(collect_facts(include_docker=False), "this host")
    return None, (), None


def host_target(facts: HostFacts, where: str) -> tuple[str, tuple[str, ...], str | None]:
    driver = facts.nvml.driver_version
    if driver is None:
        raise EnvironmentUnavailable(
            f"{where}: no NVIDIA driver version (NVML status: {facts.nvml.status})",
            hint="run `gpudoctor check` there to see why, or give --driver VERSION",
        )
    capabilities = sorted(
        {g.compute_capability for g in facts.nvml.gpus if g.compute_capability and not g.lost}
    )
    from gpudoctor.matrix.platforms import machine_of

    return driver, tuple(capabilities), machine_of(facts.platform.machine)


def build_options(
    *,
    pip: list[str] | None,
    base_image: str | None,
    index_url: str | None,
    wheelhouse: Path | None,
    tag: str | None = None,
    build_args: list[str] | None = None,
) -> BuildOptions:
    from gpudoctor.build.spec import BuildOptions

    return BuildOptions(
        pip=tuple(pip or ()),
        tag=tag,
        base_image=base_image,
        build_args=tuple(build_args or ()),
        index_url=index_url,
        wheelhouse=wheelhouse,
    )


def print_warnings(warnings: tuple[str, ...]) -> None:
    from gpudoctor.cli.common import err

    for warning in warnings:
        err(f"warning: {warning}")
