"""The host as the compatibility model sees it: the few facts that decide whether a build runs.

Made from a recorded snapshot (`from_facts`) or from flags (`from_flags`: `--driver`,
`--compute-capability`), so `check`, `resolve` and `build` judge the same inputs the same way.
Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.errors import UsageError
from gpudoctor.facts_view import driver_version, live_gpus
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts

# NVML brands of consumer cards. NVIDIA's forward compatibility is supported on data-center GPUs
# (and select NGC Server Ready RTX cards), never on GeForce or TITAN:
# https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html
_CONSUMER_BRANDS = ("geforce", "titan")


@dataclass(frozen=True)
class Gpu:
    index: int
    compute_capability: str  # "9.0"
    datacenter: bool | None = None  # None: the class is unknown (no NVML brand)


@dataclass(frozen=True)
class Host:
    driver: str | None  # "535.104.05"; None: unknown
    gpus: tuple[Gpu, ...] = ()
    machine: str | None = None  # "x86_64", "aarch64"; None: unknown (judged as x86_64)
    wsl: bool = False  # the driver version is the Windows driver's: Linux floors do not apply
    driver_cuda: str | None = None  # the CUDA version the driver reports ("12.2")
    forward_compat_libs: bool = False  # a cuda-compat libcuda is installed

    @property
    def compute_capabilities(self) -> tuple[str, ...]:
        return tuple(sorted({g.compute_capability for g in self.gpus}))

    @property
    def all_datacenter(self) -> bool:
        return bool(self.gpus) and all(g.datacenter for g in self.gpus)


def datacenter_class(brand: str | None) -> bool | None:
    if not brand:
        return None
    return not any(brand.lower().startswith(b) for b in _CONSUMER_BRANDS)


def from_facts(facts: HostFacts) -> Host:
    """The model's view of a snapshot: live GPUs with a known compute capability."""
    gpus = tuple(
        Gpu(g.index, g.compute_capability, datacenter_class(g.brand))
        for g in live_gpus(facts)
        if g.compute_capability
    )
    compat = any("/compat/" in lib.path for lib in facts.cuda_libs.libcuda)
    return Host(
        driver=driver_version(facts),
        gpus=gpus,
        machine=facts.platform.machine,
        wsl=bool(facts.platform.wsl),
        driver_cuda=facts.nvml.cuda_driver_version,
        forward_compat_libs=compat,
    )


def fleet(hosts: Sequence[Host], where: str) -> Host:
    """Every host of a fleet as one target: a build runs on this one exactly when it runs on
    each of them. The oldest driver (a newer driver runs all an older one runs), every GPU (each
    needs kernels), data-center only if all are. Hosts of different machines cannot share one
    image: UsageError."""
    machines = {h.machine or "x86_64" for h in hosts}
    if len(machines) > 1:
        raise UsageError(
            f"{where}: the hosts are of different machines ({', '.join(sorted(machines))}); one "
            "image cannot serve them all",
            hint="split the folder by machine",
        )
    drivers = [h.driver for h in hosts if h.driver]
    oldest = min(drivers, key=numeric) if len(drivers) == len(hosts) else None
    own = [h for h in hosts if h.driver == oldest]
    gpus = [g for h in hosts for g in h.gpus]
    return Host(
        driver=oldest,
        gpus=tuple(Gpu(i, g.compute_capability, g.datacenter) for i, g in enumerate(gpus)),
        machine=hosts[0].machine,
        wsl=any(h.wsl for h in hosts),
        driver_cuda=own[0].driver_cuda if own else None,
        forward_compat_libs=all(h.forward_compat_libs for h in hosts),
    )


def from_flags(driver: str | None, compute_capabilities: tuple[str, ...] = ()) -> Host:
    """A target named by flags: one GPU per distinct compute capability, class unknown."""
    return Host(
        driver=driver,
        gpus=tuple(Gpu(i, cc) for i, cc in enumerate(compute_capabilities)),
    )
