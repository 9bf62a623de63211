"""Options shared by `gpudoctor render` and `gpudoctor build`: row resolution and image options.

Only typer here (the `--help` budget); the target host's facts are read lazily.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gpudoctor.errors import EnvironmentUnavailable, UsageError

if TYPE_CHECKING:
    from gpudoctor.builder.spec import BuildOptions
    from gpudoctor.compat.host import Host
    from gpudoctor.compat.request import ResolveRequest
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Architecture, Matrix

FLAVORS = ("runtime", "devel")

FrameworkOpt = Annotated[
    Optional[str],
    typer.Option(
        "--framework", metavar="NAME[==VER]", help="pytorch or tensorflow, e.g. pytorch==2.5."
    ),
]
VersionOpt = Annotated[
    Optional[str],
    typer.Option("--version", metavar="SPEC", help='Framework version ("2.5") or specifier.'),
]
CudaOpt = Annotated[
    Optional[str],
    typer.Option("--cuda", metavar="SPEC", help='CUDA version ("12.4") or specifier.'),
]
PythonOpt = Annotated[
    Optional[str], typer.Option("--python", metavar="X.Y", help="Python version in the image.")
]
FlavorOpt = Annotated[
    Optional[str], typer.Option("--flavor", metavar="FLAVOR", help="runtime (default) or devel.")
]
DistroOpt = Annotated[
    Optional[str], typer.Option("--distro", metavar="DISTRO", help="Base distro, e.g. ubuntu22.04.")
]
DriverOpt = Annotated[
    Optional[str],
    typer.Option("--driver", metavar="VERSION", help="Target host's driver: only CUDA it runs."),
]
ForHostOpt = Annotated[
    bool,
    typer.Option("--for-host", help="Target this host: read its driver and GPUs (NVML)."),
]
FromOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--from",
        metavar="PATH",
        help="Target a recorded host: a snapshot, a pasted text report, or a folder of "
        "snapshots (the newest build that runs on every readable one).",
    ),
]
NativeOnlyOpt = Annotated[
    bool,
    typer.Option(
        "--native-only",
        help="Target host: only builds its driver runs natively (no minor-version compat).",
    ),
]
AllowUnverifiedOpt = Annotated[
    bool,
    typer.Option(
        "--allow-unverified",
        help="Also consider builds whose existence no primary source settles, and base "
        "images or CUDA rows marked verified = false.",
    ),
]
PipOpt = Annotated[
    Optional[list[str]],
    typer.Option("--pip", metavar="REQ", help="Extra pip requirement (repeatable), e.g. numpy<2."),
]
BaseImageOpt = Annotated[
    Optional[str],
    typer.Option("--base-image", metavar="REF", help="Use this base image (a mirror) instead."),
]
IndexUrlOpt = Annotated[
    Optional[str],
    typer.Option("--index-url", metavar="URL", help="Framework pip index (a mirror) instead."),
]
DownloadWheelsOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--download-wheels",
        metavar="DIR",
        help="Download the image's wheels into DIR (for --wheelhouse DIR); build nothing.",
    ),
]
WheelhouseOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--wheelhouse", metavar="DIR", help="Install offline from these wheels (no index)."
    ),
]
TagOpt = Annotated[
    Optional[str],
    typer.Option(
        "--tag",
        "-t",
        metavar="NAME:TAG",
        help="Image tag (default gpudoctor/FW:VER-cuXY-pyX.Y-DISTRO-FLAVOR-ARCH).",
    ),
]
PlatformOpt = Annotated[
    Optional[str],
    typer.Option(
        "--platform",
        metavar="OS/ARCH",
        help="linux/amd64 or linux/arm64 (default: the target host's, else the daemon's).",
    ),
]
OutputOpt = Annotated[
    Optional[Path],
    typer.Option("--output", "-o", metavar="FILE", help="Write the Dockerfile here."),
]


def resolve_request(
    *,
    framework: Optional[str],
    version: Optional[str],
    cuda: Optional[str],
    python: Optional[str],
    flavor: Optional[str],
    distro: Optional[str],
    driver: Optional[str],
    for_host: bool,
    from_file: Optional[Path],
    allow_unverified: bool,
    native_only: bool = False,
    platform: Optional[str] = None,
) -> ResolveRequest:
    """The ResolveRequest the flags describe; a target host supplies driver and GPUs."""
    from gpudoctor.builder.validate import python_version
    from gpudoctor.cli.common import check_choice
    from gpudoctor.compat.request import ResolveRequest
    from gpudoctor.matrix.inputs import framework_and_version, refuse_rocm

    refuse_rocm("--cuda", cuda)
    name, version = framework_and_version(framework, version)
    if name is None:
        raise UsageError("--framework is required", hint="use --framework pytorch")
    if flavor is not None:
        check_choice("--flavor", flavor, FLAVORS)
    if python is not None:
        python_version(python)
    host = target_host(for_host, from_file)
    host_driver = host.driver if host else None
    if driver is not None and host_driver is not None and driver != host_driver:
        raise UsageError(
            f"--driver {driver} contradicts the target host's driver {host_driver}",
            hint="give either --driver or --for-host/--from",
        )
    from gpudoctor.matrix.platforms import machine_of

    machine, host_machine = platform_machine(platform), machine_of(host.machine if host else None)
    if machine is not None and host_machine is not None and machine != host_machine:
        raise UsageError(
            f"--platform {platform} contradicts the target host's machine {host_machine}",
            hint="drop --platform: the image is built for the target host's platform",
        )
    return ResolveRequest(
        framework=name,
        version=version,
        cuda=cuda,
        python=python,
        driver=driver or host_driver,
        compute_capabilities=host.compute_capabilities if host else (),
        flavor=flavor,
        distro=distro,
        allow_unverified=allow_unverified,
        native_only=native_only,
        host=host,
        machine=machine or host_machine,
    )


def platform_machine(platform: Optional[str]) -> Optional[str]:
    """The machine of `--platform` ("linux/arm64", "arm64" or "aarch64" -> "aarch64"), by the
    one rule every command uses (matrix.inputs.machine_option)."""
    from gpudoctor.matrix.inputs import machine_option

    return machine_option(platform, "--platform")


def this_machine_unless_named(request: ResolveRequest) -> ResolveRequest:
    """Nothing names a platform and no daemon is asked (render, --download-wheels): this
    machine's."""
    if request.machine is not None:
        return request
    import platform as _platform
    from dataclasses import replace

    from gpudoctor.matrix.platforms import X86_64, machine_of

    return replace(request, machine=machine_of(_platform.machine()) or X86_64)


def check_in_matrix(matrix: Matrix, request: ResolveRequest) -> None:
    """The framework release and CUDA the user named exist in the matrix (exit 2 otherwise),
    before resolve looks for a row that meets them all."""
    from gpudoctor.matrix.inputs import check_asked

    check_asked(matrix, request.framework, request.version, request.cuda)


def target_host(
    for_host: bool, from_file: Optional[Path], architectures: Sequence[Architecture] = ()
) -> Optional[Host]:
    """The target host as the compatibility model sees it; None when none is named. `--from`
    takes what `check --from` takes: a snapshot, a pasted text report, or a fleet folder (the
    newest build that runs on every readable host)."""
    if for_host and from_file is not None:
        raise UsageError("--for-host and --from both name a target host", hint="give one")
    if from_file is not None:
        return host_from(from_file, architectures)
    if for_host:
        from gpudoctor.probes import collect_facts

        return host_target(collect_facts(include_docker=False), "this host")
    return None


def host_from(path: Path, architectures: Sequence[Architecture] = ()) -> Host:
    """`--from PATH`: a snapshot or pasted report (told apart by content, as `check --from`
    does), or a folder of snapshots: one target that every readable host is (its oldest
    driver, every GPU; compat.host.fleet), unreadable hosts named on stderr."""
    if not architectures:  # the GPU names of a pasted report are mapped by this table
        from gpudoctor.matrix.load import load_matrix

        architectures = load_matrix().architectures
    if not path.is_dir():
        from gpudoctor.pasted.load import load_facts

        return host_target(load_facts(path, architectures), str(path), recorded=True)
    from gpudoctor.compat.host import fleet
    from gpudoctor.errors import FactsError
    from gpudoctor.fleet_summary import load_fleet

    hosts: list[Host] = []
    for name, facts in load_fleet([path]):
        if isinstance(facts, FactsError):
            typer.echo(f"warning: {name}: unreadable, left out ({facts.message})", err=True)
        elif facts.nvml.driver_version is None:
            typer.echo(f"warning: {name}: no NVIDIA driver version, left out", err=True)
        else:
            hosts.append(host_target(facts, name, recorded=True))
    if not hosts:
        raise UsageError(
            f"{path}: no readable host with an NVIDIA driver in this folder",
            hint="write snapshots with `gpudoctor snapshot -o DIR/HOST.json` on each host",
        )
    return fleet(hosts, str(path))


def host_target(facts: HostFacts, where: str, *, recorded: bool = False) -> Host:
    """The target host. No driver: on this host, a part of the environment is missing (exit 3);
    in a recorded snapshot, the input cannot serve (exit 2)."""
    from gpudoctor.compat.host import from_facts
    from gpudoctor.facts_view import has_gpu
    from gpudoctor.matrix.inputs import ROCM_HINT, ROCM_NOT_BUILT

    if facts.amd.seen and not has_gpu(facts):
        raise UsageError(f"{ROCM_NOT_BUILT}: {where} has AMD GPUs only", hint=ROCM_HINT)
    if facts.nvml.driver_version is None:
        error = UsageError if recorded else EnvironmentUnavailable
        raise error(
            f"{where}: no NVIDIA driver version (NVML status: {facts.nvml.status})",
            hint="run `gpudoctor check` there to see why, or give --driver VERSION",
        )
    return from_facts(facts)


def build_options(
    *,
    pip: Optional[list[str]],
    base_image: Optional[str],
    index_url: Optional[str],
    wheelhouse: Optional[Path],
    tag: Optional[str] = None,
    build_args: Optional[list[str]] = None,
) -> BuildOptions:
    from gpudoctor.builder.spec import BuildOptions

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
