"""Check codes of AMD hosts (area `amd`, and `amd-intent` in `intent`): declared here, listed in
checks/catalogue.py's CATALOGUE with every other code, so docs/findings.md documents them."""

from __future__ import annotations

from gpudoctor.findings import CatalogueEntry, severities


def _E(code: str, area: str, title: str, allowed: str, meaning: str, fix: str) -> CatalogueEntry:  # noqa: PLR0917 (the entry's fields, in order, one table row per call)
    return CatalogueEntry(code, area, title, severities(allowed), meaning, fix)


AMD_ENTRIES = (
    _E("amd-driver", "amd", "amdgpu driver and KFD for every AMD GPU", "ok, info, error, n/a",
       "The AMD GPUs on the PCI bus (vendor 0x1002) have the amdgpu kernel driver bound and the "
       "KFD topology lists them with their gfx targets (what ROCm sees). Error when a GPU has no "
       "driver, amdgpu is not loaded or KFD shows no GPU node: no ROCm program can run; info "
       "when no ROCm software is installed (an AMD GPU, often a Ryzen's integrated one, not "
       "meant for ROCm).",
       "Install the amdgpu driver (`sudo amdgpu-install --usecase=dkms` from AMD's repository, "
       "or the distribution kernel's amdgpu) and reboot; `sudo modprobe amdgpu` loads it now."),
    _E("amd-device-access", "amd", "/dev/kfd and the render nodes can be opened",
       "ok, info, error, n/a",
       "Every ROCm process opens /dev/kfd and a /dev/dri/renderD* node read-write. Error when "
       "/dev/kfd is absent (a container started without it) or the user is not allowed to open "
       "them (not in the owning group, usually `render`); info when no ROCm software is "
       "installed.",
       "Add the user to the groups: `sudo usermod -aG render,video $USER`, then log in again. In "
       "a container: `docker run --device=/dev/kfd --device=/dev/dri --group-add video "
       "--group-add render ...` (or the AMD Container Toolkit's `--runtime=amd`, or CDI "
       "device `amd.com/gpu=N`)."),
    _E("amd-rocm-gfx", "amd", "Installed ROCm supports these GPUs", "ok, warn, n/a, unknown",
       "The ROCm in /opt/rocm (.info/version) against the gfx target of each AMD GPU: AMD's "
       "compatibility matrix lists the targets each ROCm release supports on Linux. A torch "
       "+rocm wheel does not use /opt/rocm (amd-torch-gfx judges it).",
       "Install a ROCm release that lists the GPU's target (the finding names the newest), or "
       "run the GPU with a torch +rocm wheel built for it."),
    _E("amd-torch-gfx", "amd", "torch +rocm build has kernels for these GPUs",
       "ok, info, warn, error, n/a, unknown",
       "A torch ROCm wheel brings its own ROCm user space and code objects for the gfx targets of "
       "its PYTORCH_ROCM_ARCH: a GPU outside that list fails with hipErrorNoBinaryForGpu. Judged "
       "by the wheel's own list where the matrix records it (error), else by the list of its ROCm "
       "release (warn); the detail names the kernel driver (KMD) releases AMD tests that user "
       "space with.",
       "Install the torch ROCm build the finding names (`pip install torch==X --index-url "
       "https://download.pytorch.org/whl/rocmX.Y`)."),
    _E("amd-torch-build", "amd", "torch is a ROCm build on an AMD host",
       "ok, info, warn, error, n/a",
       "torch on a host with AMD GPUs: a CUDA build cannot use them (error when no NVIDIA GPU is "
       "there to use it, info on a mixed host), a CPU-only build never uses a GPU (warn).",
       "Install the ROCm build the finding names (`pip install torch==X --index-url "
       "https://download.pytorch.org/whl/rocmX.Y`), in its own environment on a mixed host."),
    _E("amd-library-clash", "amd", "System ROCm libraries next to a torch +rocm wheel's",
       "ok, info, warn, n/a",
       "LD_LIBRARY_PATH names a ROCm tree (/opt/rocm/lib) in an environment whose torch is a "
       "ROCm wheel, which bundles its own ROCm libraries and links them with RPATH so that "
       "LD_LIBRARY_PATH does not override them (pytorch's .ci/manywheel/build_rocm.sh); an "
       "extension or tool linked against the system ROCm then loads a second HIP runtime into "
       "the same process. Warn when the system ROCm's series differs from the wheel's or is "
       "unknown, info when it is the same.",
       "Drop the /opt/rocm entries from LD_LIBRARY_PATH in the environment that runs torch (the "
       "wheel needs none)."),
    _E("amd-hsa-override", "amd", "HSA_OVERRIDE_GFX_VERSION", "ok, info, warn, n/a",
       "HSA_OVERRIDE_GFX_VERSION makes the ROCm runtime report another gfx target than the GPU "
       "has, so code objects for that target are loaded. Warn on an Instinct GPU, whose target "
       "ROCm supports (the override can only load the wrong kernels); info on a Radeon, where it "
       "is a known, unsupported workaround.",
       "Unset HSA_OVERRIDE_GFX_VERSION; on a Radeon whose target ROCm lacks, prefer a ROCm and "
       "torch build that lists the target."),
    _E("amd-visible-devices", "amd", "HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES",
       "ok, warn, n/a",
       "The variables that choose which AMD GPUs ROCm programs see: an empty value hides every "
       "GPU, an index past the last GPU hides that one.",
       "Unset the variable, or list indexes from 0 to the number of GPUs minus one."),
    _E("amd-ecc-errors", "amd", "Uncorrectable memory errors on an AMD GPU", "ok, warn, n/a",
       "amdgpu's RAS counters of each GPU's memory controller (/sys/class/drm/cardN/device/ras/"
       "umc_err_count: ue uncorrectable, ce corrected), read without any ROCm tool. A Radeon "
       "without ECC memory has none (n/a).",
       "Drain the GPU's jobs and read `amd-smi metric --ecc` and ras/gpu_vram_bad_pages; errors "
       "that keep coming back mean the GPU needs service."),
    _E("amd-container-runtime", "amd", "Docker can give containers the AMD GPUs",
       "ok, info, n/a",
       "With Docker on an AMD host: the AMD Container Toolkit's `amd` runtime or CDI "
       "`amd.com/gpu` specs (/etc/cdi, /var/run/cdi) let `docker run` request the GPUs; without "
       "them every container needs --device=/dev/kfd --device=/dev/dri and the groups by hand "
       "(a container started without them has no GPU: amd-device-access).",
       "Install the AMD Container Toolkit (runtime `amd`, or its CDI spec), or pass "
       "`--device=/dev/kfd --device=/dev/dri --group-add video --group-add render`."),
    _E("amd-intent", "intent", "Newest ROCm torch for these AMD GPUs",
       "info, error, n/a, unknown",
       "For `--framework pytorch[==X]` on a host with AMD GPUs: the newest torch ROCm build in "
       "the matrix whose gfx list covers every AMD GPU, with its install line (runtime rocm). "
       "None is an error on a host with AMD GPUs only, info next to an NVIDIA GPU.",
       "The pip command in the finding."),
)  # fmt: skip
