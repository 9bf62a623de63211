"""The one enumerator of candidate framework builds: a PyTorch release x one CUDA variant, or a
TensorFlow release. `check`, `resolve`, `build` and `render --all` all iterate this list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpudoctor.errors import UsageError
from gpudoctor.matrix.fields import numeric

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix

# Where a build's CUDA user-space libraries (cudart, cuBLAS, cuDNN, ...) come from: its own pip
# wheels (nvidia-* packages), or the system (the host, or the image's nvidia/cuda base).
CudaFrom = Literal["wheels", "system"]
# The platforms every build is published for until the matrix says otherwise per build.
DEFAULT_PLATFORMS = ("x86_64",)


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
    verified: bool
    sources: tuple[str, ...]
    tag: str = ""  # "cu124" for PyTorch variants
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS

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

    @property
    def install(self) -> str:
        """The pip command that installs this build on a host."""
        if self.framework == "pytorch":
            return f"pip install {self.requirements[0]} --index-url {self.index_url}"
        return f"pip install '{self.requirements[0]}'"


def enumerate_builds(matrix: Matrix, framework: str) -> list[Build]:
    """Every build of `framework`, newest first (version, then CUDA)."""
    if framework == "pytorch":
        return _pytorch_builds(matrix)
    if framework == "tensorflow":
        return _tensorflow_builds(matrix)
    raise unknown_framework(framework)


def unknown_framework(name: str) -> UsageError:
    from gpudoctor.matrix import inputs  # the one wording for this mistake

    return inputs.unknown_framework(name)


def platforms_of(matrix: Matrix, framework: str, version: str, cuda: str) -> tuple[str, ...]:
    """The machines a build is published for: x86_64 (every matrix row), plus those whose
    `[[wheel]]` rows carry this release with this CUDA (gpudoctor.matrix.platforms)."""
    from gpudoctor.matrix.platforms import machines_of

    return machines_of(matrix, framework, version, cuda)


def _pytorch_builds(matrix: Matrix) -> list[Build]:
    from packaging.version import Version

    out: list[Build] = []
    for release in sorted(matrix.pytorch, key=lambda r: Version(r.version), reverse=True):
        pins = [f"torch=={release.version}", f"torchvision=={release.torchvision}"]
        if release.torchaudio:
            pins.append(f"torchaudio=={release.torchaudio}")
        for variant in sorted(release.variants, key=lambda v: numeric(v.cuda), reverse=True):
            out.append(
                Build(
                    framework="pytorch",
                    version=release.version,
                    cuda=variant.cuda,
                    python=release.python,
                    cudnn=variant.cudnn,
                    requirements=tuple(pins),
                    index_url=variant.index_url,
                    arch_list=variant.arch_list,
                    cuda_from="wheels",  # the nvidia-* wheels torch depends on
                    verified=release.verified and variant.verified,
                    sources=(release.source, *release.sources, variant.source, *variant.sources),
                    tag=variant.tag,
                    platforms=platforms_of(matrix, "pytorch", release.version, variant.cuda),
                )
            )
    return out


def _tensorflow_builds(matrix: Matrix) -> list[Build]:
    from packaging.version import Version

    return [
        Build(
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
            verified=tf.verified,
            sources=(tf.source, *tf.sources),
            platforms=platforms_of(matrix, "tensorflow", tf.version, tf.cuda),
        )
        for tf in sorted(matrix.tensorflow, key=lambda r: Version(r.version), reverse=True)
    ]


def matching(builds: list[Build], version: str | None, cuda: str | None) -> list[Build]:
    """Builds of `version` ("2.5" = 2.5.*) and `cuda` ("12.4" = 12.4.*), prefix-matched."""

    def prefix(text: str, wanted: str | None) -> bool:
        if wanted is None:
            return True
        want = numeric(wanted)
        return numeric(text)[: len(want)] == want

    cuda_mm = ".".join(cuda.split(".")[:2]) if cuda else None  # a build is judged by X.Y
    return [b for b in builds if prefix(b.version, version) and prefix(b.cuda, cuda_mm)]
