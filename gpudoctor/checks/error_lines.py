"""Known error lines: the messages users paste, what each means, how to fix it, and the findings
that predict it from host facts. One table, data only: adding a known message is one row.

`check --from report.txt` records each matching line of a pasted report (gpudoctor/pasted/) and
the `report-error` check turns it into a finding; when a fact-based finding in `predicted_by`
fails too, both say that they match (checks/evidence.py).

Patterns are searched in one line at a time, case-insensitively; they are plain literals or use
bounded character classes only, so that a 10 MB paste cannot make them backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class KnownError:
    code: str  # stable, kebab-case
    pattern: str
    cause: str
    fix: str
    predicted_by: tuple[str, ...] = ()  # finding codes that explain it from the facts
    nvml_status: str | None = None  # what NVML's status is when this line is printed
    example: str = ""  # a line as users paste it (a test checks that the pattern finds it)
    # Lower-case literals, one of which every matching line holds: a paste is searched for these
    # first (str.find), and the pattern runs only on the lines that hold one.
    keywords: tuple[str, ...] = ()
    source: str = ""  # a public thread where users paste this line and its cause is settled


KNOWN_ERRORS: tuple[KnownError, ...] = (
    KnownError(
        "no-kernel-image",
        r"no kernel image is available for execution on the device",
        "the framework build has no kernels (cubin or PTX) for this GPU's compute capability",
        "install a build whose architecture list covers the GPU's compute capability: "
        "`python -c 'import torch; print(torch.cuda.get_arch_list())'` prints a build's list and "
        "`gpudoctor check --framework pytorch` on that host names a build that has it (for a "
        "Blackwell GeForce, sm_120: torch built with CUDA 12.8 or newer)",
        ("framework-arch", "framework-kernel"),
        example=(
            "RuntimeError: CUDA error: no kernel image is available for execution on the device"
        ),
        keywords=("no kernel image",),
    ),
    KnownError(
        "arch-not-compatible",
        r"sm_\d+a? is not compatible with the current pytorch installation",
        "the installed torch was compiled without kernels for this GPU's architecture (the "
        "warning lists the ones it has); every CUDA call fails with 'no kernel image'",
        "install a torch build whose architecture list has the GPU (for sm_120: a cu128 or "
        "newer build, `pip install torch --index-url https://download.pytorch.org/whl/cu128`)",
        ("framework-arch",),
        example=(
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with "
            "the current PyTorch installation."
        ),
        keywords=("is not compatible with the current pytorch",),
    ),
    KnownError(
        "driver-too-old",
        r"nvidia driver on your system is too old",
        "the driver supports an older CUDA than the framework was built with (the number in "
        "'found version 11040' is the driver's CUDA: 11.4)",
        "upgrade the NVIDIA driver, or install a framework build for the CUDA the driver "
        "supports (`nvidia-smi` shows it as 'CUDA Version')",
        ("framework-driver-cuda",),
        example="RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
        keywords=("driver on your system is too old",),
    ),
    KnownError(
        "driver-insufficient",
        r"cuda driver version is insufficient for cuda runtime version",
        "the CUDA runtime in use is newer than the driver supports",
        "upgrade the NVIDIA driver, or use a CUDA runtime (framework build or toolkit) no newer "
        "than the driver's CUDA",
        ("framework-driver-cuda", "nvcc-driver-cuda"),
        example=(
            "cudaGetDeviceCount returned 35 -> CUDA driver version is insufficient for "
            "CUDA runtime version"
        ),
        keywords=("driver version is insufficient",),
    ),
    KnownError(
        "cudnn-load-failed",
        r"(?:could not|unable to|failed to) load (?:dynamic )?library '?libcudnn",
        "a cuDNN library could not be loaded: missing, another major version, or a system cuDNN "
        "on LD_LIBRARY_PATH shadowing the framework's own nvidia-cudnn wheel",
        "`unset LD_LIBRARY_PATH` (or drop the system CUDA/cuDNN paths from it) and retry; else "
        "reinstall the framework so that pip brings the cuDNN wheel it was built with",
        ("framework-cudnn", "framework-import"),
        example=(
            "Could not load library libcudnn_cnn_infer.so.8. Error: "
            "libcudnn_cnn_infer.so.8: cannot open shared object file"
        ),
        keywords=("libcudnn",),
    ),
    KnownError(
        "undefined-symbol",
        r"undefined symbol",
        "a native library loaded from elsewhere (LD_LIBRARY_PATH, a system CUDA, cuDNN or NCCL) "
        "does not match the one the framework was built against",
        "`unset LD_LIBRARY_PATH` and retry; if it persists, `pip install --force-reinstall` the "
        "framework so that its nvidia-* wheels match",
        ("framework-import", "framework-cudnn"),
        example="ImportError: libtorch_cuda.so: undefined symbol: cudnnGetLibConfig",
        keywords=("undefined symbol",),
    ),
    KnownError(
        "driver-library-mismatch",
        r"driver/library version mismatch",
        "the loaded kernel module and the installed user-space driver library differ, "
        "typically after a driver upgrade without a reboot",
        "reboot, or reload the modules: `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia "
        "&& sudo modprobe nvidia`",
        ("driver-library-mismatch",),
        nvml_status="lib_rm_version_mismatch",
        example="Failed to initialize NVML: Driver/library version mismatch",
        keywords=("version mismatch",),
    ),
    KnownError(
        "system-not-initialized",
        r"system not yet initialized|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY"
        r"|error 802\b",
        "CUDA error 802: on NVSwitch systems (HGX/DGX A100, H100, B200) CUDA waits for the "
        "fabric manager to set up the NVLink fabric; the nvidia-fabricmanager service is "
        "stopped, not installed, or of another version than the driver",
        "`sudo systemctl enable --now nvidia-fabricmanager` (package "
        "nvidia-fabricmanager-<driver branch>, exactly the driver's version); `nvidia-smi -q "
        "| grep -A2 Fabric` shows the fabric state",
        predicted_by=("fabric-manager",),
        example="RuntimeError: cuda runtime error (802) : system not yet initialized",
        keywords=("not yet initialized", "systemnotready", "system_not_ready", "error 802"),
    ),
    KnownError(
        "docker-no-gpu-driver",
        r"could not select device driver \"[^\"\n]{0,64}\" with capabilities: \[\[gpu\]\]",
        "Docker has no GPU device driver registered: the NVIDIA Container Toolkit is not "
        "installed or not configured for this Docker (a snap-installed Docker does not see it)",
        "install nvidia-container-toolkit, then `sudo nvidia-ctk runtime configure "
        "--runtime=docker && sudo systemctl restart docker`",
        ("docker-nvidia-runtime", "container-toolkit"),
        example='docker: Error response from daemon: could not select device driver "" with '
        "capabilities: [[gpu]].",
        keywords=("could not select device driver",),
    ),
    KnownError(
        "container-cuda-requirement",
        r"unsatisfied condition: cuda ?>= ?\d",
        "the image asks for a newer CUDA (its NVIDIA_REQUIRE_CUDA) than the host's driver "
        "supports, so the NVIDIA Container Toolkit refuses to start it",
        "upgrade the host's NVIDIA driver, or use an image built for the CUDA the driver "
        "supports (`nvidia-smi` shows it as 'CUDA Version')",
        ("framework-driver-cuda",),
        example=(
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, "
            "please update your driver"
        ),
        keywords=("unsatisfied condition",),
    ),
    KnownError(
        "tf-dlopen-failed",
        r"cannot dlopen some gpu libraries",
        "TensorFlow could not load the CUDA libraries it needs (the lines above it name them); "
        "it falls back to the CPU",
        "`pip install 'tensorflow[and-cuda]'` (TensorFlow 2.14+) so that pip brings the CUDA "
        "and cuDNN wheels; on older releases install the CUDA and cuDNN versions of TensorFlow's "
        "tested build configurations",
        ("framework-cudnn", "framework-cpu-only"),
        example=(
            "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some "
            "GPU libraries."
        ),
        keywords=("cannot dlopen some gpu",),
    ),
    KnownError(
        "tf-no-cuda-drivers",
        r"could not find cuda drivers on your machine",
        "TensorFlow found no libcuda.so (the NVIDIA driver's user-space library)",
        "install the NVIDIA driver; in a container start it with `--gpus all`",
        ("nvml-library-missing", "container-gpus"),
        example=(
            "I external/local_tsl/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers "
            "on your machine, GPU will not be used."
        ),
        keywords=("could not find cuda drivers",),
    ),
    KnownError(
        "nvidia-smi-no-driver",
        r"couldn't communicate with the nvidia driver",
        "nvidia-smi cannot reach the kernel driver: the nvidia module is not loaded (not built "
        "for the running kernel, blocked by Secure Boot, or nouveau holds the GPU)",
        "`sudo modprobe nvidia` and read the error; reinstall the driver for the running "
        "kernel (DKMS) or sign the module for Secure Boot; `sudo dmesg | grep -i nvrm`",
        ("nvidia-module-not-loaded", "nouveau-loaded", "gpu-without-driver"),
        nvml_status="driver_not_loaded",
        example=(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running."
        ),
        keywords=("communicate with the nvidia driver",),
    ),
    KnownError(
        "no-cuda-device",
        r"no cuda-capable device is detected",
        "CUDA sees no GPU: none is visible to this process (CUDA_VISIBLE_DEVICES, a container "
        "started without GPUs) or the driver does not work",
        "check `nvidia-smi`; in a container start it with `--gpus all`; unset an empty "
        "CUDA_VISIBLE_DEVICES",
        ("container-gpus", "cuda-visible-devices", "nvidia-module-not-loaded"),
        example="RuntimeError: CUDA error: no CUDA-capable device is detected",
        keywords=("no cuda-capable device",),
    ),
    KnownError(
        "nvml-unknown-error",
        r"failed to initialize nvml: unknown error",
        "a running container lost its GPUs: with the systemd cgroup driver, `systemctl "
        "daemon-reload` re-applied its device rules from /dev/char, where the NVIDIA device "
        "nodes have no links (NVIDIA's notice, nvidia-container-toolkit issue #48)",
        "restart the container; on the host `sudo nvidia-ctk system create-dev-char-symlinks "
        "--create-all` and the udev rule /lib/udev/rules.d/71-nvidia-dev-char.rules "
        "(docs/findings.md#dev-char-links)",
        ("dev-char-links",),
        example="Failed to initialize NVML: Unknown Error",
        keywords=("failed to initialize nvml",),
    ),
    KnownError(
        "cgroup-devices-not-found",
        r"cgroup subsystem devices not found",
        "the NVIDIA container library predates cgroup v2 support (libnvidia-container 1.8.0) "
        "and this host uses cgroup v2",
        "upgrade nvidia-container-toolkit and libnvidia-container1 to 1.8.0 or newer",
        ("cgroup-v2-toolkit",),
        example=(
            "nvidia-container-cli: container error: cgroup subsystem devices not found: unknown."
        ),
        keywords=("cgroup subsystem devices",),
    ),
    KnownError(
        "cdi-unresolvable",
        r"unresolvable cdi devices",
        "the container asked for CDI devices that no spec on the host declares: the spec was "
        "not generated, or was generated before a driver or MIG change",
        "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
        ("cdi-spec-current",),
        example=(
            "OCI runtime create failed: could not apply required modification to OCI "
            "specification: error modifying OCI spec: failed to inject CDI devices: "
            "unresolvable CDI devices nvidia.com/gpu=0:1: unknown"
        ),
        keywords=("unresolvable cdi devices",),
    ),
    # --- AMD ROCm (HIP and the HSA runtime) ---------------------------------------------------
    KnownError(
        "hip-no-binary-for-gpu",
        r"hipErrorNoBinaryForGpu",
        "the program (torch, a ROCm library) has no code object for this GPU's gfx target: a "
        "ROCm or torch build that does not list the GPU",
        "install a torch +rocm build (or ROCm) whose gfx list has the GPU's target "
        "(`rocminfo | grep gfx`); HSA_OVERRIDE_GFX_VERSION is an unsupported workaround for "
        "Radeon GPUs only",
        ("amd-torch-gfx", "amd-rocm-gfx"),
        example="hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        keywords=("hiperrornobinaryforgpu",),
        source="https://github.com/ROCm/legacy-rocm-build/issues/2061",
    ),
    KnownError(
        "hip-invalid-device-function",
        r"(hip|rocm) error: invalid device function",
        "a kernel was launched that has no code object for this GPU's gfx target",
        "use a build whose gfx list (PYTORCH_ROCM_ARCH, AMDGPU_TARGETS) has the GPU's target",
        ("amd-torch-gfx", "amd-rocm-gfx"),
        example="ROCm error: invalid device function",
        keywords=("invalid device function",),
        source="https://github.com/ggml-org/llama.cpp/pull/15994",
    ),
    KnownError(
        "hsa-out-of-resources",
        r"HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        "the ROCm runtime could not open /dev/kfd read-write: on most hosts the user is not in "
        "the group that owns it (render, on older installs video); it works as root",
        "sudo usermod -aG render,video $USER, then log out and in again",
        ("amd-device-access", "amd-driver"),
        example=(
            "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate "
            "the necessary resources."
        ),
        keywords=("hsa_status_error_out_of_resources",),
        source="https://github.com/ROCm/legacy-rocm-build/issues/1080",
    ),
    KnownError(
        "hsa-status-error",
        r"HSA_STATUS_ERROR_[A-Z_]{3,60}",
        "the ROCm runtime (HSA) stopped with the status it names: MEMORY_APERTURE_VIOLATION and "
        "MEMORY_FAULT are a kernel reading outside its memory (the program, or a ROCm and "
        "framework mismatch), others a runtime or driver failure",
        "for a memory fault, update the framework and ROCm to a pair built together; for other "
        "statuses run `rocminfo` as the same user and read its error",
        ("amd-torch-gfx", "amd-library-clash"),
        example=(
            "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_"
            "VIOLATION: The agent attempted to access memory beyond the largest legal address. "
            "code: 0x29"
        ),
        keywords=("hsa_status_error_",),
        source="https://github.com/ROCm/legacy-rocm-build/issues/2153",
    ),
    KnownError(
        "no-hip-gpus",
        r"No HIP GPUs are available",
        "torch's ROCm build sees no GPU: /dev/kfd not accessible (user not in render), the "
        "container started without /dev/kfd and /dev/dri, or HIP_VISIBLE_DEVICES hides them",
        "check `rocminfo` as the same user; add the user to render and video; in a container "
        "add --device=/dev/kfd --device=/dev/dri",
        ("amd-device-access", "amd-driver"),
        example="RuntimeError: No HIP GPUs are available",
        keywords=("no hip gpus are available",),
        source="https://github.com/ROCm/hip/issues/3799",
    ),
)

BY_CODE: dict[str, KnownError] = {e.code: e for e in KNOWN_ERRORS}


@cache
def _combined() -> re.Pattern[str]:
    """One alternation with a named group per row: a single pass over each line."""
    groups = "|".join(f"(?P<{e.code.replace('-', '_')}>{e.pattern})" for e in KNOWN_ERRORS)
    return re.compile(groups, re.IGNORECASE)


def match_error(line: str) -> KnownError | None:
    """The known error this line shows, the first row that matches; None when none does."""
    found = _combined().search(line)
    if found is None or found.lastgroup is None:
        return None
    return BY_CODE[found.lastgroup.replace("_", "-")]
