"""The one enumerator of candidate framework builds: a PyTorch release x one CUDA variant, or a
TensorFlow release. `check`, `resolve`, `build` and `render --all` all iterate this list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpudoctor import versions
from gpudoctor.errors import UsageError
from gpudoctor.matrix import inputs
from gpudoctor.matrix.inputs import cuda_matches
from gpudoctor.matrix.platforms import machines_of
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix, PytorchRelease, PytorchVariant, TensorflowRelease

# Where a build's CUDA user-space libraries (cudart, cuBLAS, cuDNN, ...) come from: its own pip
# wheels (nvidia-* packages), or the system (the host, or the image's nvidia/cuda base).
CudaFrom = Literal["wheels", "system"]
# The platforms every build is published for until the matrix says otherwise per build.
DEFAULT_PLATFORMS = ("x86_64",)
# The facts of a build that may or may not have been read from its artifact, as output names them.
FACT_NAMES = {
    "cudnn": "cuDNN pin",
    "nccl": "NCCL pin",
    "arch_list": "arch list",
    "python": "Python list",
    "version": "version",
    "cuda": "CUDA version",
    "companions": "Python list and companion pins",
}


@dataclass(frozen=True)
class Build:
    """One framework build: what the model judges and what a row needs from a base image."""

    framework: str
    version: str
    cuda: str  # "12.4"
    python: tuple[str, ...]
    cudnn: str | None
    requirements: tuple[str, ...]
    index_url: str | None
    arch_list: tuple[str, ...] | None  # None: the matrix does not list them (TensorFlow)
    cuda_from: CudaFrom
    # Provenance: does the build exist (a primary source says so, or it was read from the
    # artifact), and which of its facts were not read from the artifact (cudnn, arch_list, ...).
    exists: bool
    unread: tuple[str, ...]
    sources: tuple[str, ...]
    tag: str = ""  # "cu124" for PyTorch variants
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS
    runtime: str = "cuda"  # the GPU runtime the build is for: "cuda" (next: "rocm")
    judge_only: bool = False  # judged when installed; never offered, resolved or built
    nccl: str | None = None  # the NCCL wheel it pins, when the matrix knows it

    @property
    def verified(self) -> bool:
        """It exists and every fact of it was read from the artifact."""
        return self.exists and not self.unread

    @property
    def system_cudnn(self) -> bool:
        """Needs CUDA and cuDNN from the base image (TensorFlow without [and-cuda])."""
        return self.cuda_from == "system"

    @property
    def label(self) -> str:
        """ "pytorch 2.5.1 cu124", "tensorflow 2.15.1 (CUDA 12.2)"."""
        if self.tag:
            return f"{self.framework} {self.version} {self.tag}"
        return f"{self.framework} {self.version} (CUDA {self.cuda})"


def provenance(
    row: PytorchVariant | PytorchRelease | TensorflowRelease, facts: tuple[str, ...]
) -> tuple[bool, tuple[str, ...]]:
    """(exists, unread) of a matrix row: a `verified = true` row was read whole from the
    artifact; otherwise it exists when `exists` names a primary source, and the facts it does
    not list under `read` were not read from the artifact."""
    if row.verified:
        return True, ()
    return bool(row.exists), tuple(f for f in facts if f not in row.read)


def enumerate_builds(matrix: Matrix, framework: str) -> list[Build]:
    """Every build of `framework`, newest first (version, then CUDA)."""
    if framework == "pytorch":
        return _pytorch_builds(matrix)
    if framework == "tensorflow":
        return _tensorflow_builds(matrix)
    raise unknown_framework(framework)


def unknown_framework(name: str) -> UsageError:
    return inputs.unknown_framework(name)


def platforms_of(matrix: Matrix, framework: str, version: str, cuda: str) -> tuple[str, ...]:
    """The machines a build is published for: x86_64 (every matrix row), plus those whose
    `[[wheel]]` rows carry this release with this CUDA (gpudoctor.matrix.platforms)."""
    return machines_of(matrix, framework, version, cuda)


def torch_pins(release: PytorchRelease) -> list[str]:
    """torch with the torchvision/torchaudio of its release: one set for every runtime's index
    (the CUDA and ROCm wheel sets of a release carry the same companion versions)."""
    pins = [f"torch=={release.version}", f"torchvision=={release.torchvision}"]
    if release.torchaudio:
        pins.append(f"torchaudio=={release.torchaudio}")
    return pins


def _pytorch_builds(matrix: Matrix) -> list[Build]:
    out: list[Build] = []
    for release in sorted(matrix.pytorch, key=lambda r: versions.pep440(r.version), reverse=True):
        pins = torch_pins(release)
        for variant in sorted(release.variants, key=lambda v: numeric(v.cuda), reverse=True):
            facts = ("cudnn", "arch_list") + (("nccl",) if variant.nccl else ())
            exists, unread = provenance(variant, facts)
            # The release row's own provenance: it exists, and its Python list and companions
            # were read, or not.
            exists = exists and (release.verified or bool(release.exists))
            if not release.verified:
                unread = (*unread, "companions")
            out.append(
                Build(
                    framework="pytorch",
                    version=release.version,
                    cuda=variant.cuda,
                    python=release.python,
                    cudnn=variant.cudnn,
                    requirements=tuple(pins),
                    index_url=variant.index_url,
                    # none listed (torch before 1.8: no source): unknown, not "no kernels"
                    arch_list=variant.arch_list or None,
                    cuda_from="wheels",  # the nvidia-* wheels torch depends on
                    exists=exists,
                    unread=unread,
                    sources=(
                        release.source,
                        *release.sources,
                        *((variant.exists,) if variant.exists else ()),
                        variant.source,
                        *variant.sources,
                    ),
                    nccl=variant.nccl,
                    judge_only=release.judge_only,
                    tag=variant.tag,
                    platforms=platforms_of(matrix, "pytorch", release.version, variant.cuda),
                )
            )
    return out


def _tensorflow_builds(matrix: Matrix) -> list[Build]:
    return [
        _tensorflow_build(matrix, tf)
        for tf in sorted(matrix.tensorflow, key=lambda r: versions.pep440(r.version), reverse=True)
    ]


def _tensorflow_build(matrix: Matrix, tf: TensorflowRelease) -> Build:
    exists, unread = provenance(tf, ("cudnn",))
    return Build(
        framework="tensorflow",
        version=tf.version,
        cuda=tf.cuda,
        python=tf.python,
        cudnn=tf.cudnn,
        requirements=(tf.pip,),
        index_url=None,
        arch_list=None,
        # Since 2.14 `tensorflow[and-cuda]` installs CUDA and cuDNN from PyPI; older
        # releases load them from the system.
        cuda_from="wheels" if "[and-cuda]" in tf.pip.replace(" ", "") else "system",
        exists=exists,
        unread=unread,
        sources=(tf.source, *tf.sources),
        platforms=platforms_of(matrix, "tensorflow", tf.version, tf.cuda),
    )


def matching(builds: list[Build], version: str | None, cuda: str | None) -> list[Build]:
    """Builds of `version` ("2.5" = 2.5.*) and `cuda` as `--cuda` means it everywhere
    (matrix.inputs.cuda_matches: "12" any 12.x, "12.4" or "12.4.1" 12.4, a range on X.Y)."""

    def prefix(text: str, wanted: str | None) -> bool:
        if wanted is None:
            return True
        want = numeric(wanted)
        return numeric(text)[: len(want)] == want

    return [b for b in builds if prefix(b.version, version) and cuda_matches(b.cuda, cuda)]


def installed(matrix: Matrix, framework: str, version: str, cuda: str | None) -> Build | None:
    """The one lookup of the build a host (or an image) has installed: the release by
    major.minor ("2.5.1+cu124" -> the 2.5 row) and, for torch, the variant by its CUDA
    (major.minor; None for a CPU-only or unknown build: no variant). TensorFlow has one build
    per release, whatever CUDA the host reports."""
    if framework == "pytorch" and cuda is None:
        return None
    wanted_cuda = cuda if framework == "pytorch" else None
    found = matching(
        enumerate_builds(matrix, framework), versions.major_minor(version), wanted_cuda
    )
    return found[0] if found else None
