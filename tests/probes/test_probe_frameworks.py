"""frameworks.py against fake site-packages trees: nothing is imported, only files are read."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import BundledLib, Companion
from gpudoctor.probes.frameworks import probe_frameworks
from tests.support.probe_fakes import write_dist

TORCH_CU124_VERSION_PY = """\
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '2.5.1+cu124'
debug = False
cuda: Optional[str] = '12.4'
git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'
hip: Optional[str] = None
"""

TORCH_CPU_VERSION_PY = """\
__version__ = '2.5.1+cpu'
debug = False
cuda: Optional[str] = None
hip: Optional[str] = None
"""

TF_BUILD_INFO = """\
# pylint: disable=line-too-long
import collections

build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), \
('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), \
('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), \
('is_rocm_build', False), ('is_tensorrt_build', True)])
"""


def _torch_cu124(site: Path) -> None:
    write_dist(
        site,
        "torch",
        "2.5.1+cu124",
        requires=[
            "filelock",
            'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"',  # noqa: E501
            'nvidia-nccl-cu12==2.21.5; platform_system == "Linux"',
            'triton==3.1.0; platform_system == "Linux"',
            'nvidia-cusparse-cu12==12.3.1.170; platform_system == "Linux"',
        ],
        files={"torch/version.py": TORCH_CU124_VERSION_PY},
    )
    write_dist(site, "nvidia-cudnn-cu12", "9.1.0.70", requires=["nvidia-cublas-cu12"])
    write_dist(site, "nvidia-cublas-cu12", "12.4.5.8")
    write_dist(site, "nvidia-nccl-cu12", "2.21.5")
    write_dist(site, "nvidia-cusparse-cu12", "12.3.1.170", requires=["nvidia-nvjitlink-cu12"])
    write_dist(site, "nvidia-nvjitlink-cu12", "12.4.127")
    write_dist(site, "nvidia-cufft-cu11", "10.9.0.58")  # installed, not torch's: not bundled


def test_torch_cuda_build_with_bundled_wheels(tmp_path: Path) -> None:
    _torch_cu124(tmp_path)
    frameworks, issues = probe_frameworks(paths=[tmp_path])
    assert issues == []
    (torch,) = frameworks
    assert (torch.name, torch.version, torch.cuda, torch.cpu_only, torch.hip) == (
        "torch",
        "2.5.1+cu124",
        "12.4",
        False,
        None,
    )
    assert torch.cudnn == "9.1.0.70"
    assert torch.location == str(tmp_path / "torch")
    assert torch.bundled == (
        BundledLib("nvidia-cublas-cu12", "12.4.5.8"),  # through nvidia-cudnn-cu12
        BundledLib("nvidia-cudnn-cu12", "9.1.0.70"),
        BundledLib("nvidia-cusparse-cu12", "12.3.1.170"),
        BundledLib("nvidia-nccl-cu12", "2.21.5"),
        BundledLib("nvidia-nvjitlink-cu12", "12.4.127"),
    )


def test_torch_companions_are_recorded_with_their_local_tag(tmp_path: Path) -> None:
    _torch_cu124(tmp_path)
    write_dist(tmp_path, "torchvision", "0.20.1+cu124", requires=["torch==2.5.1"])
    (torch,), _ = probe_frameworks(paths=[tmp_path])
    assert torch.companions == (Companion("torchvision", "0.20.1", "cu124"),)  # no torchaudio
    write_dist(tmp_path, "torchaudio", "2.5.1", requires=["torch==2.5.1"])
    (torch,), _ = probe_frameworks(paths=[tmp_path])
    assert torch.companions[1] == Companion("torchaudio", "2.5.1", "")


def test_torch_cpu_build(tmp_path: Path) -> None:
    write_dist(tmp_path, "torch", "2.5.1+cpu", files={"torch/version.py": TORCH_CPU_VERSION_PY})
    (torch,), _ = probe_frameworks(paths=[tmp_path])
    assert (torch.cuda, torch.cpu_only, torch.cudnn, torch.bundled) == (None, True, None, ())


def test_torch_without_version_file_falls_back_to_the_local_tag(tmp_path: Path) -> None:
    write_dist(tmp_path, "torch", "2.4.0+cu118")
    (torch,), issues = probe_frameworks(paths=[tmp_path])
    assert (torch.cuda, torch.cpu_only) == ("11.8", False)
    assert [i.code for i in issues] == ["torch-version-file-unreadable"]


def test_torch_rocm_build(tmp_path: Path) -> None:
    version_py = "__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133-dd7f95766'\n"
    write_dist(tmp_path, "torch", "2.5.1+rocm6.2", files={"torch/version.py": version_py})
    (torch,), _ = probe_frameworks(paths=[tmp_path])
    assert (torch.cuda, torch.hip, torch.cpu_only) == (None, "6.2.41133-dd7f95766", False)


def test_tensorflow_build_info(tmp_path: Path) -> None:
    write_dist(
        tmp_path,
        "tensorflow",
        "2.16.1",
        requires=['nvidia-cudnn-cu12==8.9.7.29; extra == "and-cuda"'],
        files={"tensorflow/python/platform/build_info.py": TF_BUILD_INFO},
    )
    (tf,), issues = probe_frameworks(paths=[tmp_path])
    assert issues == []
    assert (tf.name, tf.version, tf.cuda, tf.cpu_only, tf.cudnn) == (
        "tensorflow",
        "2.16.1",
        "12.3",
        False,
        "8",  # the declared major; no nvidia-cudnn wheel installed
    )
    assert tf.arch_list == ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90")
    assert tf.build_cudnn == "8"
    write_dist(tmp_path, "nvidia-cudnn-cu12", "8.9.7.29")
    (tf,), _ = probe_frameworks(paths=[tmp_path])
    assert tf.cudnn == "8.9.7.29"
    assert tf.bundled == (BundledLib("nvidia-cudnn-cu12", "8.9.7.29"),)


def test_tensorflow_without_build_info_takes_the_runtime_wheels_cuda(tmp_path: Path) -> None:
    """An unreadable build_info leaves the CUDA to the nvidia-cuda-runtime wheel that
    tensorflow[and-cuda] installed (cuda_wheels.runtime_cuda, the rule a pasted pip list uses)."""
    write_dist(
        tmp_path,
        "tensorflow",
        "2.15.0",
        requires=['nvidia-cuda-runtime-cu12==12.2.140; extra == "and-cuda"'],
    )
    write_dist(tmp_path, "nvidia-cuda-runtime-cu12", "12.2.140")
    (tf,), issues = probe_frameworks(paths=[tmp_path])
    assert [i.code for i in issues] == ["tf-build-info-unreadable"]
    assert tf.cuda == "12.2"


def test_tensorflow_cpu_package(tmp_path: Path) -> None:
    info = "build_info = {'is_cuda_build': False, 'is_rocm_build': False}\n"
    write_dist(
        tmp_path,
        "tensorflow-cpu",
        "2.17.0",
        files={"tensorflow/python/platform/build_info.py": info},
    )
    (tf,), _ = probe_frameworks(paths=[tmp_path])
    assert (tf.name, tf.cuda, tf.cpu_only) == ("tensorflow", None, True)


def test_jax_with_cuda_plugin(tmp_path: Path) -> None:
    write_dist(tmp_path, "jax", "0.4.35", requires=["jaxlib<=0.4.35,>=0.4.34"])
    write_dist(tmp_path, "jaxlib", "0.4.35")
    write_dist(
        tmp_path,
        "jax-cuda12-plugin",
        "0.4.35",
        requires=['nvidia-cuda-runtime-cu12>=12.1.105; extra == "with-cuda"', "jax-cuda12-pjrt"],
    )
    write_dist(tmp_path, "jax-cuda12-pjrt", "0.4.35")
    write_dist(tmp_path, "nvidia-cuda-runtime-cu12", "12.6.77")
    (jax,), _ = probe_frameworks(paths=[tmp_path])
    assert (jax.version, jax.cuda, jax.cpu_only) == ("0.4.35", "12.6", False)
    assert [b.package for b in jax.bundled] == [
        "jax-cuda12-pjrt",
        "jax-cuda12-plugin",
        "jaxlib",
        "nvidia-cuda-runtime-cu12",
    ]


def test_jax_cpu_and_old_jaxlib_local_tag(tmp_path: Path) -> None:
    write_dist(tmp_path / "cpu", "jax", "0.4.35")
    write_dist(tmp_path / "cpu", "jaxlib", "0.4.35")
    (jax,), _ = probe_frameworks(paths=[tmp_path / "cpu"])
    assert (jax.cuda, jax.cpu_only) == (None, True)
    write_dist(tmp_path / "old", "jax", "0.4.13")
    write_dist(tmp_path / "old", "jaxlib", "0.4.13+cuda12.cudnn89")
    (jax,), _ = probe_frameworks(paths=[tmp_path / "old"])
    assert (jax.cuda, jax.cudnn, jax.cpu_only) == ("12", "8.9", False)


def test_first_on_the_path_wins_and_nothing_else_is_reported(tmp_path: Path) -> None:
    write_dist(
        tmp_path / "user", "torch", "2.6.0+cpu", files={"torch/version.py": TORCH_CPU_VERSION_PY}
    )
    _torch_cu124(tmp_path / "system")
    write_dist(tmp_path / "system", "numpy", "2.1.0")
    frameworks, _ = probe_frameworks(paths=[tmp_path / "user", tmp_path / "system"])
    assert [(f.name, f.version) for f in frameworks] == [("torch", "2.6.0+cpu")]


def test_distributions_edge_and_empty_environment(tmp_path: Path) -> None:
    from importlib import metadata

    _torch_cu124(tmp_path)
    dists = [metadata.PathDistribution(tmp_path / "torch-2.5.1+cu124.dist-info")]
    (torch,), _ = probe_frameworks(distributions=dists)
    assert torch.bundled == ()  # only what the caller handed in is known
    assert probe_frameworks(paths=[tmp_path / "missing"]) == ((), [])
