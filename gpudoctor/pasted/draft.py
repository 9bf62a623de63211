"""The facts a pasted report shows, gathered by the shape parsers before they become HostFacts.

Each part is a dict keyed by the field names of its facts.py dataclass, so that building the
HostFacts is a plain `Dataclass(**part)`. The first value written wins: shapes run in a fixed
order (most specific first), and a later shape never overwrites what an earlier one read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudoctor.facts import ReportError, StackPod


@dataclass
class Draft:
    sections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    nvml: dict[str, Any] = field(default_factory=dict)
    gpus: dict[int, dict[str, Any]] = field(default_factory=dict)
    kernel: dict[str, Any] = field(default_factory=dict)
    platform: dict[str, Any] = field(default_factory=dict)
    packages: dict[str, str] = field(default_factory=dict)  # normalised name -> version
    torch: dict[str, Any] = field(default_factory=dict)  # collect_env's view of torch
    tensorflow: dict[str, Any] = field(default_factory=dict)  # build info / log lines
    # what JAX showed of itself: cpu_only (its fallback warning), cuda_available (jax.devices())
    jax: dict[str, Any] = field(default_factory=dict)
    torch_cuda_available: bool | None = None
    nvcc_version: str | None = None
    cuda_toolkit_version: str | None = None  # /usr/local/cuda/version.json's "CUDA SDK"
    nvrtc: bool = False  # the report shows NVRTC in use with that runtime (CuPy's show_config)
    cudnn_files: list[str] = field(default_factory=list)
    errors: list[ReportError] = field(default_factory=list)
    # lines that say something failed that no signature names (unknown_errors.py)
    unknown_lines: list[ReportError] = field(default_factory=list)
    # the numbers of the lines a signature names, repeats included (errors.py)
    named_lines: set[int] = field(default_factory=set)
    # Kubernetes Warning events no signature names (k8s_events.py; `code` is the reason)
    warning_events: list[ReportError] = field(default_factory=list)
    # (section, first line, last line) of each part read, for the report's header
    ranges: list[tuple[str, int, int]] = field(default_factory=list)
    # (first line, last line) of each recognised block (nvidia-smi -q, collect_env, ...): its
    # parser read those lines field by field, so a word there is a field name, not a mention
    blocks: list[tuple[int, int]] = field(default_factory=list)
    libraries: dict[str, str] = field(default_factory=dict)  # "nccl" -> version named
    runtime: dict[str, Any] = field(default_factory=dict)  # ContainerRuntimeFacts fields
    image: dict[str, str] = field(default_factory=dict)  # a Dockerfile's base image: "cuda"
    named_gpus: list[tuple[str, int, int]] = field(default_factory=list)  # name, count, line
    # a GPU name a script printed after a device key (answers.py), taken only where no other
    # line names a GPU: (name, line)
    answered_gpus: list[tuple[str, int]] = field(default_factory=list)
    scan_line: int = 0  # the line facts_scan is reading (its handlers name it)
    xid_events: list[Any] = field(default_factory=list)  # facts_multigpu.XidEvent
    nccl_env: list[Any] = field(default_factory=list)  # facts_multigpu.EnvVar
    ib_ports: list[Any] = field(default_factory=list)  # facts_multigpu.IbPort (ibstat)
    shm_bytes: int | None = None  # the size of /dev/shm `df` or `mount` showed (host_tools.py)
    gpus_from_text: bool = False  # the GPUs were read from prose, not from a GPU listing
    amd: dict[str, Any] = field(default_factory=dict)  # AmdFacts fields the ROCm tools showed
    amd_gpus: dict[int, dict[str, Any]] = field(default_factory=dict)  # name, gfx, device_id, bdf
    # flatpak's NVIDIA GL runtimes named ("550-90-07": facts.ReportFacts.flatpak_gl_nvidia)
    flatpak_gl_nvidia: list[str] = field(default_factory=list)
    named: list[tuple[str, int]] = field(default_factory=list)  # framework word, line number
    images: list[str] = field(default_factory=list)  # container images named, with their tag
    # CUDA libraries `ldd` or an LD_DEBUG trace resolved outside a wheel (name, path, version),
    # those an `ldconfig -p` listing shows in the loader's cache, and the folders an
    # LD_LIBRARY_PATH value in the paste names: build.py files each library under the loader
    # step that found it.
    ldd_libs: list[tuple[str, str, str | None]] = field(default_factory=list)
    cache_libs: list[tuple[str, str, str | None]] = field(default_factory=list)
    ld_library_path: list[str] = field(default_factory=list)
    # `LD_DEBUG=libs`: the last file the loader tried for each soname; the one it then maps
    # ("file=SONAME [0];  generating link map") is the one it loaded.
    ld_debug_tried: dict[str, str] = field(default_factory=dict)
    stack_pods: list[StackPod] = field(default_factory=list)  # the NVIDIA stack's pods read
    k8s_gpu_allocated: int | None = None  # nvidia.com/gpu a node's pods request (node_allocated)

    def section(self, name: str) -> None:
        if name not in self.sections:
            self.sections.append(name)

    def in_block(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.blocks)

    def note(self, text: str) -> None:
        """Say how the paste was read (once: a log repeats the line that gives it)."""
        if text not in self.notes:
            self.notes.append(text)

    def read_at(self, section: str, text: str, offset: int, lines: int = 1) -> None:
        """Mark `lines` lines of `text` from the one holding `offset` as read by `section`: the
        report header names what was read, by line ranges."""
        first = text.count("\n", 0, offset) + 1
        self.section(section)
        self.ranges.append((section, first, first + max(lines, 1) - 1))

    def module_loaded(self, name: str) -> bool:
        """Record that the kernel module `name` is loaded; False where it already was."""
        modules = self.kernel.setdefault("modules_loaded", [])
        if name in modules:
            return False
        modules.append(name)
        return True

    def gpu(self, index: int) -> dict[str, Any]:
        return self.gpus.setdefault(index, {"index": index})

    def amd_gpu(self, index: int) -> dict[str, Any]:
        return self.amd_gpus.setdefault(index, {})


def put(part: dict[str, Any], key: str, value: Any) -> None:
    """Record a fact unless the value is unknown or an earlier shape already gave one."""
    if value is not None and value != "" and key not in part:
        part[key] = value


# What nvidia-smi prints where NVML answered a query of the GPU with an error: "ERR!" in its
# table, "[Unknown Error]" or "[GPU is lost]" in -q and --query-gpu ("N/A" and "[Not Supported]"
# are values the GPU does not have, not errors).
_FAILED = ("err!", "unknown error", "[unknown error]", "gpu is lost", "[gpu is lost]")
# A fan's error alone is a fan fault; three failed readings are a GPU whose queries all fail.
_FAILED_TO_LOST = 3


def failed_reading(text: str) -> bool:
    """Whether a value nvidia-smi printed is NVML's error for that query."""
    return text.strip().lower() in _FAILED


def mark_failed_readings(gpu: dict[str, Any], failed: list[tuple[str, str]], where: str) -> None:
    """A GPU lost (as the live probe records one whose handle fails) where nvidia-smi shows it
    lost, or shows errors for three or more of its readings; with one or two, the readings that
    failed (`failed` pairs a reading's name with the value printed for it)."""
    lost = any("lost" in value.lower() for _, value in failed)
    if lost or len(failed) >= _FAILED_TO_LOST:
        put(gpu, "lost", True)
        said = "GPU is lost" if lost else f"{failed[0][1].strip()} for {len(failed)} readings"
        put(gpu, "error", f"{where} shows {said}: NVML's queries of the GPU fail")
    elif failed:
        put(gpu, "failed_readings", tuple(dict.fromkeys(name for name, _ in failed)))


def unknown_value(text: str | None) -> bool:
    """The ways reports say "don't know": collect_env's 'Could not collect', nvidia-smi's N/A."""
    return text is None or text.strip().lower() in (
        "",
        "n/a",
        "na",
        "none",
        "could not collect",
        "[not supported]",
        "not supported",
        "unknown error",
        "[unknown error]",
        "[n/a]",
    )
