"""`gpudoctor snapshot`: record this host as HostFacts JSON, to attach to a bug or to judge
elsewhere with `gpudoctor check --from FILE`."""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

from pathlib import Path
from typing import Annotated, Optional

import typer

from gpudoctor.children import DEEP_TIMEOUT_S
from gpudoctor.cli.common import DeepOpt, DeepTimeoutOpt

HELP = """Record this host's GPU facts as JSON (stdout, or -o FILE).

\b
  gpudoctor snapshot                  print the snapshot
  gpudoctor snapshot -o host.json     write it (atomically) to host.json
  gpudoctor check --from host.json    judge the recorded host anywhere

Collects what `gpudoctor check` reads: NVIDIA PCI devices and kernel module, NVML (driver,
GPUs, MIG, ECC), platform (VM, WSL, container, IOMMU), Docker and the NVIDIA Container
Toolkit, CUDA toolkits and libraries, and installed frameworks (read without importing them).
Nothing is judged here; what could not be read is listed under "issues".

--deep also imports each installed framework in a subprocess (this Python), asks it for CUDA
and runs one small kernel (a CUDA context; seconds per framework, each bounded by
--deep-timeout); what it saw goes under "deep".

By default the snapshot is redacted: no hostname, GPU UUIDs or serials (UUIDs in
NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES become GPU indexes), only the kernel parameters
the checks read (IOMMU, driver blacklists, nouveau/nvidia/vfio options, pci=), and no URL
credentials or home-directory user names in any value. --no-redact keeps everything and writes
-o FILE readable by its owner only (0600).
"""


def register(app: typer.Typer) -> None:
    app.command("snapshot", help=HELP, short_help="Record this host's GPU facts as JSON.")(snapshot)


def snapshot(  # noqa: PLR0917 - typer maps each option to a parameter
    output: Annotated[
        Optional[Path],
        typer.Option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout."),
    ] = None,
    no_redact: Annotated[
        bool,
        typer.Option(
            "--no-redact",
            help="Keep hostname, GPU UUIDs, serials, the whole kernel command line and paths.",
        ),
    ] = False,
    fmt: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="Output format: json.")
    ] = "json",
    no_docker: Annotated[
        bool, typer.Option("--no-docker", help="Do not ask the Docker daemon.")
    ] = False,
    deep: DeepOpt = False,
    deep_timeout: DeepTimeoutOpt = DEEP_TIMEOUT_S,
    root: Annotated[
        Path,
        typer.Option(
            "--root",
            hidden=True,  # for tests and recorded trees: read sysfs/procfs/etc under PATH
            metavar="PATH",
        ),
    ] = Path("/"),
) -> int:
    from gpudoctor.cli.common import check_choice, write_output, wrote
    from gpudoctor.facts_json import dumps
    from gpudoctor.probes import collect_facts

    check_choice("--format", fmt, ("json",))
    facts = collect_facts(
        root=root,
        redact=not no_redact,
        include_docker=not no_docker,
        deep=deep,
        deep_timeout_s=deep_timeout,
    )
    write_output(dumps(facts), output, private=no_redact)
    wrote(output, "the snapshot of this host" + ("" if no_redact else " (redacted)"))
    return 0
