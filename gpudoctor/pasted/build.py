"""Draft -> HostFacts. Frameworks come from what the report shows about them (collect_env's
torch lines, the build info, package versions); a value no section shows stays None. The
compute capability of a GPU known only by name comes from the matrix's architecture table (its
example GPUs), never from a guess: a name the table does not hold stays unknown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gpudoctor import __version__, versions
from gpudoctor.cuda_wheels import runtime_cuda
from gpudoctor.facts import (
    NAMED_IN_REPORT,
    VERSION_NOT_SHOWN,
    BundledLib,
    Companion,
    ContainerRuntimeFacts,
    CudaLibFacts,
    CudaToolkit,
    DeepFrameworkFacts,
    FrameworkFacts,
    GpuFacts,
    HostFacts,
    InstalledProgram,
    KernelFacts,
    LibraryFact,
    NvmlFacts,
    PlatformFacts,
    ReportFacts,
    ReportRange,
    VgpuLicense,
)
from gpudoctor.facts_amd import AmdFacts, AmdPciGpu, KfdNode, gfx_version
from gpudoctor.facts_multigpu import FabricFacts, MultiGpuFacts
from gpudoctor.facts_view import jetson_gpu_name
from gpudoctor.framework_names import GPU_PROGRAMS, LOGGED_PROGRAMS
from gpudoctor.pasted.k8s_events import MAX_EVENTS
from gpudoctor.pasted.unknown_errors import MAX_LINES
from gpudoctor.pasted.unknowns import unknowns
from gpudoctor.probes.frameworks import cudnn_wheel

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Architecture
    from gpudoctor.pasted.draft import Draft

_TF_NAMES = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly")
_JAX_PLUGIN = re.compile(r"^jax-cuda(\d+)-(?:plugin|pjrt)$")
_JAXLIB_CUDA = re.compile(r"^cuda(\d+)")  # an older jaxlib's local tag: "+cuda12.cudnn89"
_CUDNN_SO = re.compile(r"libcudnn(?:_\w+)?\.so\.(\d+(?:\.\d+){0,2})$")


def build(
    draft: Draft, source: str, architectures: Sequence[Architecture] = (), lines: int = 0
) -> HostFacts:
    gpus = tuple(_gpu(g, architectures) for _, g in sorted(draft.gpus.items()))
    nvml = NvmlFacts(**{**draft.nvml, "gpus": gpus})
    frameworks = tuple(f for f in (_torch(draft), _tensorflow(draft), _jax(draft)) if f is not None)
    facts = HostFacts(
        tool_version=__version__,
        platform=PlatformFacts(**_with_grace_machine(draft.platform, gpus)),
        kernel=KernelFacts(
            **{
                **draft.kernel,
                "modules_loaded": tuple(draft.kernel.get("modules_loaded", ())),
                "pci_devices": tuple(draft.kernel.get("pci_devices", ())),
                "nvidia_dkms_kernels": (
                    tuple(draft.kernel["nvidia_dkms_kernels"])
                    if "nvidia_dkms_kernels" in draft.kernel
                    else None
                ),
            }
        ),
        nvml=nvml,
        container_runtime=ContainerRuntimeFacts(**draft.runtime),
        cuda_libs=_cuda_libs(draft),
        frameworks=frameworks,
        programs=_programs(draft),
        deep=_deep(draft, frameworks),
        multigpu=_multigpu(draft),
        amd=_amd(draft),
    )

    report = ReportFacts(
        source=source,
        sections=tuple(draft.sections),
        notes=tuple(draft.notes),
        unknown=tuple(unknowns(facts)),
        errors=tuple(draft.errors),
        ranges=merge_ranges(draft.ranges),
        lines=lines,
        named=_named(draft),
        images=tuple(dict.fromkeys(draft.images)),
        stack_pods=tuple(draft.stack_pods),
        k8s_gpu_allocated=draft.k8s_gpu_allocated,
        # beside a known line, the unknown ones are its context (unknown_errors.py)
        unknown_lines=() if draft.errors else tuple(draft.unknown_lines[:MAX_LINES]),
        warning_events=tuple(draft.warning_events[:MAX_EVENTS]),
        flatpak_gl_nvidia=tuple(draft.flatpak_gl_nvidia),
    )
    return HostFacts(**{**facts.__dict__, "report": report})


def _named(draft: Draft) -> tuple[str, ...]:
    """The frameworks named on lines that are not known error lines, in order."""
    error_lines = {e.line for e in draft.errors}
    out: list[str] = []
    for word, line in draft.named:
        if line not in error_lines and word not in out:
            out.append(word)
    return tuple(out)


def merge_ranges(ranges: Sequence[tuple[str, int, int]]) -> tuple[ReportRange, ...]:
    """Per section, touching or overlapping line ranges joined, in order of their first line."""
    by_section: dict[str, list[list[int]]] = {}
    for section, first, last in sorted(ranges, key=lambda r: (r[0], r[1], r[2])):
        spans = by_section.setdefault(section, [])
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    out = [ReportRange(s, a, b) for s, spans in by_section.items() for a, b in spans]
    return tuple(sorted(out, key=lambda r: (r.first, r.section)))


def _programs(draft: Draft) -> tuple[InstalledProgram, ...]:
    """The GPU programs the paste names with a version (pip lines, start-up logs)."""
    return tuple(
        InstalledProgram(name=name, version=draft.packages[name])
        for name in (*GPU_PROGRAMS, *LOGGED_PROGRAMS)
        if name in draft.packages
    )


def _multigpu(draft: Draft) -> MultiGpuFacts:
    """A pasted kernel log's Xid lines, the NCCL_* variables a paste sets, the HCA ports
    ibstat/ibv_devinfo show and the size of /dev/shm; the rest of the multi-GPU probe was not
    run."""
    if not draft.xid_events and not draft.nccl_env and not draft.ib_ports and not draft.shm_bytes:
        return MultiGpuFacts()
    return MultiGpuFacts(
        shm_bytes=draft.shm_bytes,
        xid_readable=True if draft.xid_events else None,
        xid_events=tuple(draft.xid_events),
        nccl_env=tuple(draft.nccl_env),
        ib_ports=tuple(draft.ib_ports),
    )


def _amd(draft: Draft) -> AmdFacts:
    """The AMD GPUs the ROCm tools or collect_env listed, as KFD nodes (what ROCm sees): the
    report shows their gfx target, not the sysfs, /dev and group facts the probe reads."""
    listed = {i: g for i, g in draft.amd_gpus.items() if i < 1000}
    gpus = listed or draft.amd_gpus  # rocminfo's agents only when no tool numbered the GPUs
    nodes, cards = [], []
    for position, (_, gpu) in enumerate(sorted(gpus.items())):
        gfx = gpu.get("gfx")
        version = gfx_version(gfx) if gfx else None
        device = gpu.get("device_id")
        if version is None:
            if device:  # rocm-smi -i names the device, not its target: the matrix maps it.
                # The ROCm tools list only GPUs amdgpu drives, so the driver is amdgpu.
                cards.append(AmdPciGpu(f"GPU {position}", gpu.get("bdf"), device, None, "amdgpu"))
            continue
        nodes.append(
            KfdNode(
                node=gpu.get("node", position),
                gfx_target_version=version,
                gfx_target=gfx,
                device_id=int(device, 16) if device else None,
            )
        )
    return AmdFacts(**{**draft.amd, "kfd_nodes": tuple(nodes), "pci_gpus": tuple(cards)})


def _gpu(part: dict[str, Any], architectures: Sequence[Architecture]) -> GpuFacts:
    part = dict(part)
    state, status = part.pop("_fabric_state", None), part.pop("_fabric_status", None)
    if state is not None:
        part["fabric"] = FabricFacts(state=state, status=status)
    product, licence = part.pop("_license_product", None), part.pop("_license_status", None)
    if licence is not None:
        part["vgpu_license"] = VgpuLicense(state=licence[0], product=product, expiry=licence[1])
    elif product is not None:
        part["vgpu_license"] = VgpuLicense(state="unknown", product=product)
    gpu = GpuFacts(**part)
    if gpu.compute_capability is None and gpu.name:
        cc = compute_capability_for(gpu.name, architectures)
        if cc:
            return GpuFacts(**{**part, "compute_capability": cc})
    return gpu


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[\s\-_/()]+", name.upper()) if t]


_ALIAS = re.compile(r"^(?P<name>[^()]{2,60}?)\s{0,2}\((?P<alias>[^()]{2,30})\)$")


def listed_names(example: str) -> tuple[str, ...]:
    """The names a matrix model list's entry gives: NVIDIA's CUDA GPUs page writes some as a
    product and its GPU ("DGX Spark (GB10)"), and nvidia-smi names the GPU ("NVIDIA GB10")."""
    found = _ALIAS.match(example.strip())
    if found is None:
        return (example,)
    return (example, found.group("name").strip(), found.group("alias").strip())


def compute_capability_for(name: str, architectures: Sequence[Architecture]) -> str | None:
    """The compute capability of the architecture whose example GPU names appear in `name` as
    whole words ("NVIDIA GeForce RTX 5090" holds "GeForce RTX 5090"); the longest match wins, and
    a name that matches two architectures equally is left unknown. "A/B" names two candidate
    models ("RTX 6000 Ada/RTX A6000"): they must agree, or the compute capability stays unknown."""
    if "/" in name:
        each = {compute_capability_for(part, architectures) for part in name.split("/")}
        return each.pop() if len(each) == 1 else None
    tokens = _tokens(name)
    best: dict[int, set[str]] = {}
    for arch in architectures:
        for listed in (*arch.datacenter_gpus, *arch.consumer_gpus):
            for example in listed_names(listed):
                want = _tokens(example)
                n = len(want)
                if n and any(tokens[i : i + n] == want for i in range(len(tokens) - n + 1)):
                    best.setdefault(n, set()).add(arch.compute_capability)
    if not best:
        return None
    found = best[max(best)]
    return next(iter(found)) if len(found) == 1 else None


# The superchips and the DGX Spark pair their GPU with an Arm CPU (Grace; the GB10 with Arm
# cores too), so a report naming one is from an aarch64 host even when it does not say so:
# https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/
_GRACE_GPU = re.compile(r"\b(?:GH200|GB200|GB300|GB10)\b", re.IGNORECASE)


def _with_grace_machine(platform: dict[str, Any], gpus: tuple[GpuFacts, ...]) -> dict[str, Any]:
    """The platform's facts, with the machine aarch64 when it is unknown and a GPU is one of a
    Grace superchip's, or every GPU is a Jetson's as CUDA names it to a program running on the
    board ("Orin", "NVIDIA Tegra X1": deviceQuery, torch); a module's product name ("Jetson
    Orin NX") may be prose written on the x86 host that flashes it. What the report states is
    kept."""
    if platform.get("machine"):
        return platform
    named = [g.name for g in gpus if g.name]
    grace = any(_GRACE_GPU.search(n) for n in named)
    on_board = bool(named) and all(
        jetson_gpu_name(n) and not n.lower().startswith(("jetson", "nvidia jetson")) for n in named
    )
    if not grace and not on_board:
        return platform
    return {**platform, "machine": "aarch64"}


def _public(version: str) -> tuple[str, str]:
    """(public version, local tag) through packaging: "2.5.1+cu124" -> ("2.5.1", "cu124")."""
    try:
        parsed = versions.pep440(version)
    except ValueError:  # packaging InvalidVersion
        return version, ""
    return parsed.public, parsed.local or ""


def _torch(draft: Draft) -> FrameworkFacts | None:
    seen = dict(draft.torch)
    version = seen.pop("version", None) or draft.packages.get("torch")
    if version is None:
        return None
    _, local = _public(version)
    cuda = seen.get("cuda") or versions.cuda_of_tag(local)
    hip = seen.get("hip") or (local if local.startswith("rocm") else None)
    cpu_only = seen.get("cpu_only")
    if not (cuda or local or hip or cpu_only or seen.get("cuda_none")):
        cuda = runtime_cuda(draft.packages.items())  # PyPI's wheel: CUDA from NVIDIA's wheels
    if cpu_only is None:
        if local == "cpu":
            cpu_only = True
        elif cuda or hip:
            cpu_only = False
        elif seen.get("cuda_none"):
            cpu_only = True  # collect_env printed the build's CUDA as None, and no ROCm
    cudnn_wheel = next(
        (v for k, v in sorted(draft.packages.items()) if re.fullmatch(r"nvidia-cudnn-cu\d+", k)),
        None,
    )
    return FrameworkFacts(
        name="torch",
        version=version,
        cuda=cuda,
        cpu_only=cpu_only,
        cudnn=cudnn_wheel or seen.get("cudnn"),  # the wheel, or what cudnn.version() said
        hip=hip,
        bundled=_bundled(draft),
        companions=_companions(draft),
        arch_list=tuple(seen.get("arch_list") or ()),  # torch.__config__.show()'s NVCC flags
        build_cudnn=seen.get("build_cudnn"),
    )


def _jax(draft: Draft) -> FrameworkFacts | None:
    """JAX as the live probe records it (probes/frameworks.py jax_facts): its CUDA from the
    jax-cudaNN-plugin wheel, or an older jaxlib's "+cuda12" tag, in the pasted package list; a
    CPU-only build where JAX itself said it fell back to the CPU for want of a CUDA-enabled
    jaxlib, or where the paste's packages show jax's CUDA in no form at all is not told."""
    version = draft.packages.get("jax") or draft.packages.get("jaxlib")
    if version is None:
        return None
    plugin = next((m for m in map(_JAX_PLUGIN.match, sorted(draft.packages)) if m), None)
    _, jaxlib_local = _public(draft.packages.get("jaxlib", ""))
    tag = _JAXLIB_CUDA.match(jaxlib_local)
    cuda = plugin.group(1) if plugin else tag.group(1) if tag else None
    cuda = (runtime_cuda(draft.packages.items(), cuda) or cuda) if cuda else None
    cpu_only = draft.jax.get("cpu_only")
    if cpu_only is None and (cuda or draft.jax.get("cuda_available")):
        cpu_only = False
    return FrameworkFacts(
        name="jax",
        version=version,
        cuda=cuda,
        cpu_only=cpu_only,
        bundled=_bundled(draft),
    )


def _companions(draft: Draft) -> tuple[Companion, ...]:
    """torchvision/torchaudio from the pasted pip or conda list, as the probe records them."""
    out = []
    for name in ("torchvision", "torchaudio"):
        version = draft.packages.get(name)
        if version:
            public, local = _public(version)
            out.append(Companion(name, public, local))
    return tuple(out)


def _bundled(draft: Draft) -> tuple[BundledLib, ...]:
    return tuple(
        BundledLib(package=k, version=v)
        for k, v in sorted(draft.packages.items())
        if k.startswith("nvidia-") and k != "nvidia-ml-py"
    )


# What TensorFlow itself answered about its build: enough to judge it without its version.
_TF_BUILD_SAID = ("cpu_only", "cuda", "cuda_available")


def _tensorflow(draft: Draft) -> FrameworkFacts | None:
    """TensorFlow from its package (pip list, tf.__version__, "TensorFlow version: 2.15.0"); a
    paste that shows only what TensorFlow answered (`tf.test.is_built_with_cuda()`, its build
    info, `tf.config.list_physical_devices('GPU')`) keeps those answers under VERSION_NOT_SHOWN
    rather than an invented version."""
    tf = draft.tensorflow
    name = next((n for n in _TF_NAMES if n in draft.packages), None)
    if name is None and not any(tf.get(k) is not None for k in _TF_BUILD_SAID):
        return None
    cpu_only = tf.get("cpu_only")
    if name == "tensorflow-cpu":
        cpu_only = True
    elif cpu_only is None and tf.get("cuda_available"):
        cpu_only = False  # a TensorFlow that lists a GPU is a GPU build
    bundled = _bundled(draft)
    return FrameworkFacts(
        name="tensorflow",
        version=draft.packages[name] if name else VERSION_NOT_SHOWN,
        # what its build info said, else the CUDA runtime tensorflow[and-cuda] installed
        cuda=tf.get("cuda") or (None if cpu_only else runtime_cuda(draft.packages.items())),
        cpu_only=cpu_only,
        # the cuDNN wheel it loads, else what its build info declared (as the live probe)
        cudnn=cudnn_wheel(bundled) or tf.get("cudnn"),
        bundled=bundled,
        arch_list=tuple(tf.get("arch_list") or ()),
        build_cudnn=tf.get("build_cudnn"),
    )


def _cuda_libs(draft: Draft) -> CudaLibFacts:
    cudnn = []
    for path in draft.cudnn_files:
        found = _CUDNN_SO.search(path)
        cudnn.append(
            LibraryFact(name="libcudnn", path=path, version=found.group(1) if found else None)
        )
    if not cudnn and "cudnn" in draft.libraries:  # "cuDNN: 8.0.4" in an environment list
        cudnn.append(
            LibraryFact(name="libcudnn", path=NAMED_IN_REPORT, version=draft.libraries["cudnn"])
        )
    toolkits: tuple[CudaToolkit, ...] = ()
    if draft.nvcc_version:
        toolkits = (
            CudaToolkit(
                path="CUDA runtime with NVRTC (CuPy)"
                if draft.nvrtc
                else "nvcc on PATH (collect_env)",
                nvcc_version=draft.nvcc_version,
                nvrtc=draft.nvrtc,
            ),
        )
    elif draft.cuda_toolkit_version:
        toolkits = (
            CudaToolkit(
                path="/usr/local/cuda (its version file)", version=draft.cuda_toolkit_version
            ),
        )
    nccl: tuple[LibraryFact, ...] = ()
    if "nccl" in draft.libraries:
        built = draft.libraries.get("nccl_cuda")
        stated = draft.libraries["nccl"] + (f"+cuda{built}" if built else "")
        nccl = (LibraryFact(name="libnccl", path=NAMED_IN_REPORT, version=stated),)
    # A library in a folder on LD_LIBRARY_PATH is found through it, before the wheels; any
    # other was loaded (ldd, LD_DEBUG) or is listed (ldconfig -p) from a system folder.
    ld_path: list[LibraryFact] = []
    resolved: list[LibraryFact] = []
    cache: list[LibraryFact] = []
    for listed, rest in ((draft.ldd_libs, resolved), (draft.cache_libs, cache)):
        for name, path, version in listed:
            fact = LibraryFact(name=name, path=path, version=version)
            on_path = path.rsplit("/", 1)[0] in draft.ld_library_path
            (ld_path if on_path else rest).append(fact)
    return CudaLibFacts(
        toolkits=toolkits,
        cudnn=tuple(cudnn),
        nccl=nccl,
        ld_library_path_libs=tuple(ld_path),
        loader_cache_libs=tuple(cache),
        resolved_libs=tuple(resolved),
    )


def _deep(draft: Draft, frameworks: tuple[FrameworkFacts, ...]) -> tuple[DeepFrameworkFacts, ...]:
    """The report shows a framework's own answer to "is CUDA available" (collect_env, an
    interactive session, `transformers env`, TensorFlow's device list): that is what --deep's
    probe records (no kernel was run, so kernel_ok stays unknown)."""
    answers = {
        "torch": draft.torch_cuda_available,
        "tensorflow": draft.tensorflow.get("cuda_available"),
        "jax": draft.jax.get("cuda_available"),
    }
    # No kernel is known to have run: a "no kernel image" line may come from any library's
    # kernel (vLLM's, flash-attn's), so it is judged as an error line, not as torch's kernel.
    return tuple(
        DeepFrameworkFacts(
            name=fw.name,
            outcome="ok",
            import_ok=True,
            version=None if fw.version == VERSION_NOT_SHOWN else fw.version,
            cuda=fw.cuda,
            cuda_available=answers[fw.name],
            error="the report shows no kernel run",
        )
        for fw in frameworks
        if answers.get(fw.name) is not None
    )
