"""What a known error line means on the host the report shows, where that differs from the
signature catalogue's general wording: one table, tried in order, and the first reading that
applies replaces the catalogue's cause and fix (or only its fix). Specific contexts come first:
a Jetson's own libraries and driver model before a container's missing mounts, and a program
that brings no cuDNN of its own after both.

Each reading is a pure function of the line (its code and text) and the host's facts; None
where its context does not hold. Two readings may hold at once (a program in a container on a
Jetson): the order here, not the order of the calls, says which one speaks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from gpudoctor.checks.cudnn import program_without_cudnn
from gpudoctor.checks.jetson import (
    host_mounted_library,
    jetpack_cuda_library,
    jetson_driver_fix,
    ollama_on_jetson,
)
from gpudoctor.checks.k8s_pod import pod_without_driver, stack_runtime_fix
from gpudoctor.checks.runtime import container_without_driver

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix


@dataclass(frozen=True)
class Line:
    """One known line of a report: its signature's code, its text, the values it states."""

    code: str
    text: str
    values: dict[str, str]


# (cause or None to keep the catalogue's, fix)
Reading = tuple[Optional[str], str]
Reader = Callable[[Line, "HostFacts", "Matrix"], Optional[Reading]]


def _library_of(line: Line) -> str:
    """The library the line could not open, as its signature's values name it."""
    values = line.values
    return f"lib{values.get('lib', '')}.so.{values.get('major') or values.get('cudnn', '')}"


def _jetson_driver(line: Line, facts: HostFacts, matrix: Matrix) -> Reading | None:
    fix = jetson_driver_fix(line.code, facts, matrix)
    return None if fix is None else (None, fix)


def _jetson_container(line: Line, facts: HostFacts, matrix: Matrix) -> Reading | None:
    """Both a container without a driver and a Jetson: the runtime that mounts the Jetson's
    driver libraries first, then the build for its JetPack."""
    mounted = container_without_driver(line.code, facts)
    fix = jetson_driver_fix(line.code, facts, matrix)
    if mounted is None or fix is None:
        return None
    return mounted[0], (
        "run the container with `--runtime nvidia` (the NVIDIA runtime mounts the Jetson's "
        f"driver libraries into it); if the line stays, {fix}"
    )


def _k8s_stack(line: Line, facts: HostFacts, matrix: Matrix) -> Reading | None:
    """The device plugin's or DCGM exporter's no-NVML line: the fix for the node shown."""
    fix = stack_runtime_fix(line.code, facts)
    return None if fix is None else (None, fix)


def _vm_code_43(line: Line, facts: HostFacts, matrix: Matrix) -> Reading | None:
    """Device Manager's Code 43 on a Windows that the report shows in a VM: the GPU passed
    through, whose GeForce driver before R465 refuses to run in a VM (NVIDIA supports GeForce
    passthrough to a Windows VM from R465), rather than a failing card."""
    p = facts.platform
    if line.code != "windows-device-code-43" or p.wsl:
        return None
    if p.virtualization in (None, "none") and not p.hypervisor_flag:
        return None
    where = p.virtualization if p.virtualization not in (None, "none") else "a hypervisor"
    return (
        f"Device Manager's Code 43 in a virtual machine ({where}): the GPU passed through to it "
        "was reported failed by its driver; a GeForce driver before R465 stops a GPU it finds in "
        "a VM this way (NVIDIA supports GeForce passthrough to a Windows VM from R465)",
        "install NVIDIA's driver R465 or newer in the guest; pass the whole GPU (with its audio "
        "function) through to one VM, and keep the host from using it (bind it to vfio-pci); if "
        "Code 43 stays, check the card on bare metal",
    )


# Most specific first (see the module's docstring).
READINGS: tuple[tuple[str, Reader], ...] = (
    # a JetPack 4 container takes CUDA from the host: a missing library is a missing mount
    ("jetson-host-mounts", lambda ln, f, m: host_mounted_library(ln.code, _library_of(ln), f)),
    # a CUDA runtime of another release than the JetPack's: a build for another JetPack
    ("jetpack-cuda", lambda ln, f, m: jetpack_cuda_library(ln.text, ln.code, f, m)),
    # ollama's generic CUDA runners on a Jetson: its JetPack build
    ("ollama-jetson", lambda ln, f, m: ollama_on_jetson(ln.code, f, m)),
    # a Jetson's container without a driver: the runtime's mounts, then the JetPack's build
    ("jetson-container-driver", _jetson_container),
    # a no-driver line in a Kubernetes pod: its GPU limit and runtime, not `docker run --gpus`
    ("k8s-pod-driver", lambda ln, f, m: pod_without_driver(ln.code, f, ln.text)),
    # the NVIDIA stack's no-NVML lines: the runtime set-up of the node the report shows
    ("k8s-stack-runtime", _k8s_stack),
    # no driver shown in a container or pod: no driver mounted, as often as an old one
    ("container-driver", lambda ln, f, m: container_without_driver(ln.code, f)),
    # no driver to upgrade on its own: a Jetson's comes with its L4T release
    ("jetson-driver", _jetson_driver),
    # no framework's own cuDNN to fall back to: a library path to set
    ("program-cudnn", lambda ln, f, m: program_without_cudnn(ln.code, f)),
    # Code 43 where the report shows a VM: the guest's driver, not the card
    ("windows-vm-code-43", _vm_code_43),
)


def reading(line: Line, facts: HostFacts, matrix: Matrix) -> tuple[str, Reading] | None:
    """(the reading's name, its cause and fix) of the first reading that holds; None where
    the catalogue's own wording stands."""
    for name, reader in READINGS:
        found = reader(line, facts, matrix)
        if found is not None:
            return name, found
    return None
