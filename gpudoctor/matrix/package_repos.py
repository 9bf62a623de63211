"""Which repository ships an NVIDIA package, for a package manager that finds no such package
(`E: Unable to locate package cuda`, dnf's `No match for argument: nvidia-container-toolkit`):
the signature's `package` group is filled in with the repository its family comes from and how
that repository is configured (matrix/signatures.py DERIVED).

- NVIDIA's container toolkit repository (nvidia.github.io/libnvidia-container): the toolkit,
  libnvidia-container and the retired nvidia-docker2 / nvidia-container-runtime packages (the
  container toolkit's install guide).
- The distribution's own non-free packages: Debian's nvidia-driver and nvidia-cuda-toolkit are in
  its non-free component (contrib and non-free-firmware beside it from Debian 12), Ubuntu's
  nvidia-driver-NNN in restricted and nvidia-cuda-toolkit in multiverse; neither is in a sources
  list that names only main. Ubuntu's versioned driver packages are also in NVIDIA's CUDA
  repository, which carries branches a release's own archive lacks.
- NVIDIA's CUDA network repository (developer.download.nvidia.com/compute/cuda/repos/): the
  toolkit (cuda, cuda-toolkit-12-4), cuda-drivers, nvidia-open, cuDNN (cudnn9-cuda-12,
  libcudnn9-cuda-12), NCCL, TensorRT, the fabric manager and DCGM (the CUDA installation
  guide's network repository, configured by the cuda-keyring package on Debian and Ubuntu).
"""

from __future__ import annotations

import re

_CONTAINER = re.compile(
    r"(?:nvidia-container-toolkit(?:-base)?|libnvidia-container[\w.+-]{0,40}|"
    r"nvidia-container-runtime|nvidia-docker2?)"
)
_DISTRIBUTION = re.compile(
    r"(?:nvidia-cuda-toolkit|nvidia-cuda-dev|nvidia-driver|nvidia-kernel-dkms|"
    r"nvidia-(?:driver|utils|headless|dkms)-\d{3}(?:-[\w-]{1,20})?|libnvidia-compute-\d{3})"
)

_CONTAINER_REPO = "NVIDIA's container toolkit repository (nvidia.github.io/libnvidia-container)"
_CONTAINER_FIX = (
    "configure NVIDIA's container toolkit repository as its install guide shows (apt: its "
    "gpgkey and https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-"
    "toolkit.list in /etc/apt/sources.list.d; dnf, yum and zypper: https://nvidia.github.io/"
    "libnvidia-container/stable/rpm/nvidia-container-toolkit.repo in the repository folder), "
    "refresh the package lists (apt: `sudo apt-get update`), then install it again"
)
_DISTRIBUTION_REPO = (
    "the distribution's non-free packages (Debian: the non-free component; Ubuntu: restricted "
    "for the driver, multiverse for nvidia-cuda-toolkit)"
)
_DISTRIBUTION_FIX = (
    "enable the component that holds it and refresh the lists: Debian: add contrib non-free "
    "non-free-firmware (Debian 11: contrib non-free) to each Debian line of the sources and run "
    "`sudo apt-get update`; Ubuntu: `sudo add-apt-repository restricted multiverse` then `sudo "
    "apt-get update`; a driver branch the release's archive does not carry comes from NVIDIA's "
    "CUDA repository (the cuda-keyring package, CUDA installation guide)"
)
_CUDA_REPO = (
    "NVIDIA's CUDA repository (developer.download.nvidia.com/compute/cuda/repos/), which also "
    "ships cuDNN, NCCL and TensorRT"
)
_CUDA_FIX = (
    "add NVIDIA's CUDA network repository for this distribution, release and architecture as "
    "the CUDA installation guide shows (Debian, Ubuntu: install the cuda-keyring package from "
    "https://developer.download.nvidia.com/compute/cuda/repos/<distro><release>/<arch>/ then "
    "`sudo apt-get update`; RHEL, Rocky, Fedora: `dnf config-manager --add-repo` of that "
    "folder's cuda-<distro><release>.repo; SUSE: `zypper addrepo` of it), then install it again; "
    "where the repository is configured, its listing shows whether it carries that name and "
    "release for this distribution"
)


def package_repo_values(package: str) -> dict[str, str]:
    """The repository that ships `package` and how to configure it: the signature's
    {package_repo} and {package_repo_fix}."""
    name = package.lower()
    if _CONTAINER.fullmatch(name):
        return {"package_repo": _CONTAINER_REPO, "package_repo_fix": _CONTAINER_FIX}
    if _DISTRIBUTION.fullmatch(name):
        return {"package_repo": _DISTRIBUTION_REPO, "package_repo_fix": _DISTRIBUTION_FIX}
    return {"package_repo": _CUDA_REPO, "package_repo_fix": _CUDA_FIX}
