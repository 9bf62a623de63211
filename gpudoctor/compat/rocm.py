"""The ROCm side of the compatibility model: which gfx targets an AMD host has, which targets a
torch +rocm wheel or a ROCm release carries, and the newest torch ROCm build that runs here.

Kept in one small module so that the build selection (compat/builds.py, choose.py) can take it
in as its `runtime = "rocm"` branch; until then the AMD checks ask only this module, and the pip
line is built with the same index rule (matrix.platforms.pip_index_args) as the CUDA side's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.compat.builds import torch_pins
from gpudoctor.compat.install import command

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import AmdGpu, Matrix, PytorchRocmVariant, RocmRelease

RUNTIME = "rocm"


@dataclass(frozen=True)
class AmdTarget:
    """One gfx target on the host, with the GPUs (KFD nodes or PCI cards) that have it."""

    gfx: str
    count: int
    name: str | None  # the [[amd_gpu]] model, when its PCI id is in the matrix
    kind: str | None  # "instinct" or "radeon", from the same row


@dataclass(frozen=True)
class RocmBuild:
    """A torch ROCm wheel set judged for this host's targets."""

    variant: PytorchRocmVariant
    targets: tuple[str, ...]  # the gfx list it was judged by
    by: str  # "wheel" (its own PYTORCH_ROCM_ARCH) or "rocm" (its ROCm series' supported list)
    supported: tuple[str, ...] | None = None  # what AMD supports with its ROCm; None: unknown
    # torch with its release's torchvision/torchaudio (compat.builds.torch_pins); torch alone
    # when the matrix has no [[pytorch]] row of that release
    pins: tuple[str, ...] = ()

    def runs(self, gfx: str) -> bool:
        """Kernels for the target, on a ROCm release AMD supports it with (when known)."""
        return gfx in self.targets and (self.supported is None or gfx in self.supported)

    @property
    def label(self) -> str:
        return f"torch {self.variant.pytorch}+{self.variant.tag}"

    @property
    def install(self) -> str:
        note = "" if self.variant.verified else " (its matrix row is marked verified = false)"
        pins = self.pins or (f"torch=={self.variant.pytorch}",)
        return command(pins, self.variant.index_url) + note


def gpu_model(matrix: Matrix, device_id: str | None) -> AmdGpu | None:
    if not device_id:
        return None
    return next((g for g in matrix.amd_gpus if device_id.lower() in g.pci_ids), None)


def host_targets(facts: HostFacts, matrix: Matrix) -> list[AmdTarget]:
    """The gfx targets of the host's AMD GPUs: from the KFD topology (what ROCm will see), else
    from the PCI device ids the matrix knows (amdgpu not loaded, KFD hidden in a container)."""
    amd = facts.amd
    found: dict[str, list[AmdGpu | None]] = {}
    for node in amd.gpu_nodes:
        if node.gfx_target:
            key = f"0x{node.device_id:04x}" if node.device_id is not None else None
            found.setdefault(node.gfx_target, []).append(gpu_model(matrix, key))
    if not amd.gpu_nodes:
        for card in amd.pci_gpus:
            model = gpu_model(matrix, card.device_id)
            if model is not None:
                found.setdefault(model.gfx, []).append(model)
    targets = []
    for gfx, rows in sorted(found.items()):
        known = [r for r in rows if r is not None]
        names = sorted({r.name for r in known})
        targets.append(
            AmdTarget(
                gfx=gfx,
                count=len(rows),
                name=names[0] if len(names) == 1 else None,
                kind=known[0].kind if known and len({r.kind for r in known}) == 1 else None,
            )
        )
    return targets


def kind_of(matrix: Matrix, gfx: str) -> str | None:
    """ "instinct" or "radeon" for a gfx target every [[amd_gpu]] row of agrees on."""
    kinds = {g.kind for g in matrix.amd_gpus if g.gfx == gfx}
    return kinds.pop() if len(kinds) == 1 else None


def rocm_release(matrix: Matrix, version: str | None) -> RocmRelease | None:
    """The [[rocm]] row of a ROCm version ("6.3.1-48", "6.2.41133-dd7f95766", "6.2.4")."""
    series = versions.major_minor(version or "", pad=False)
    return next((r for r in matrix.rocm if r.version == series), None) if series else None


def rocm_tag(fw: FrameworkFacts) -> str | None:
    """The ROCm of a torch build from its local version tag ("2.5.1+rocm6.2" -> "6.2")."""
    local = fw.version.partition("+")[2]
    return local[len("rocm") :] if local.startswith("rocm") and len(local) > 4 else None


def installed_variant(matrix: Matrix, fw: FrameworkFacts) -> PytorchRocmVariant | None:
    tag = rocm_tag(fw)
    public = versions.public(fw.version)
    return next(
        (v for v in matrix.pytorch_rocm if v.pytorch == public and v.rocm == tag),
        None,
    )


def judged(matrix: Matrix, variant: PytorchRocmVariant) -> RocmBuild | None:
    """A variant with the gfx list it is judged by: its own, else its ROCm series' (None when
    neither is recorded)."""
    row = rocm_release(matrix, variant.series)
    supported = row.gfx if row is not None else None
    release = next((r for r in matrix.pytorch if r.version == variant.pytorch), None)
    pins = tuple(torch_pins(release)) if release is not None else ()
    if variant.gfx:
        return RocmBuild(variant, variant.gfx, "wheel", supported, pins)
    return RocmBuild(variant, row.gfx, "rocm", supported, pins) if row is not None else None


def newest_for_host(
    matrix: Matrix, targets: list[str], version: str | None = None
) -> RocmBuild | None:
    """The newest torch ROCm build (release, then ROCm) whose gfx list has every target;
    `version` ("2.5") keeps that release's builds."""
    candidates = [
        v
        for v in matrix.pytorch_rocm
        if version is None or versions.major_minor(v.pytorch) == versions.major_minor(version)
    ]
    candidates.sort(
        key=lambda v: (versions.numeric(v.pytorch), versions.numeric(v.rocm)), reverse=True
    )
    for variant in candidates:
        build = judged(matrix, variant)
        if build is not None and all(build.runs(t) for t in targets):
            return build
    return None
