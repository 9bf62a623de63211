"""What the frameworks print about themselves, in their own shapes:

- Hugging Face's `transformers env` / `accelerate env` / `diffusers-cli env`: "- Platform:
  Linux-5.15.0-122-generic-x86_64-with-glibc2.35" (Python's `platform.platform()`: the
  kernel release and machine), "- GPU type: NVIDIA A100-SXM4-80GB" (torch's name of GPU 0) and
  diffusers' "- Accelerator: NVIDIA GeForce RTX 3060, 12288 MiB" (nvidia-smi's
  `--query-gpu=gpu_name,memory.total` CSV, one GPU a line). Their "PyTorch version (GPU?)"
  line is a facts_scan rule.
- `jax.print_environment_info()`: "device info: NVIDIA GeForce RTX 3090-1, 1 local devices"
  (the kind of device 0 and the count; "cpu-1" when JAX found no GPU) and "platform:
  uname_result(system='Linux', ..., release='6.8.0-48-generic', ..., machine='x86_64')" (its
  jax/jaxlib lines are facts_scan's).
- `jax.devices()`: "[CudaDevice(id=0), CudaDevice(id=1)]" (older: "[cuda(id=0)]",
  "[gpu(id=0)]", "[StreamExecutorGpuDevice(id=0, ...)]"), or "[CpuDevice(id=0)]" when JAX
  found no GPU.
- JAX's warning when it finds an NVIDIA device node (/dev/nvidia0, /dev/nvidiactl, /dev/dxg)
  but no CUDA backend was registered: "An NVIDIA GPU may be present on this machine, but a
  CUDA-enabled jaxlib is not installed. Falling back to cpu." (jax/_src/xla_bridge.py
  _suggest_missing_backends; a CUDA plugin that is installed but fails logs "CUDA backend
  failed to initialize" instead): a CPU-only JAX, as the live probe records one without a
  jax-cudaNN-plugin.
- DeepSpeed's `ds_report`, "DeepSpeed general environment info:": dotted key lines
  ("torch version .................... 2.1.0+cu121", "torch cuda version ............... 12.1",
  "torch hip version", "nvcc version", "deepspeed info").
- `torch.__config__.show()`, "PyTorch built with:": "  - CUDA Runtime 12.1", "  - CuDNN
  8.9.2", "  - NVCC architecture flags: -gencode;arch=compute_80,code=sm_80;...", and its
  "Build settings: ... TORCH_VERSION=2.1.0, USE_CUDA=ON, ...".
- `torch.cuda.get_device_properties(i)`: "_CudaDeviceProperties(name='NVIDIA GeForce RTX 3090',
  major=8, minor=6, total_memory=24259MB, ...)"; a ROCm build adds "gcnArchName='gfx1100'".
- TensorFlow's `tf.config.list_physical_devices('GPU')`: "[PhysicalDevice(name=
  '/physical_device:GPU:0', device_type='GPU')]", or `[]` under the call; and the count its
  install guide prints ("Num GPUs Available:  0").
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import iter_lines

NAME = "framework environment"
DESCRIPTION = (
    "`transformers env` / `accelerate env` / `diffusers-cli env`, "
    "`jax.print_environment_info()`, `jax.devices()`, `ds_report`, `torch.__config__.show()`, "
    "`torch.cuda.get_device_properties`, `tf.config.list_physical_devices('GPU')`"
)

_RELEASE = r"\d\.\d{1,2}\.\d{1,3}(?:[.-][\w.+~-]{0,60}?)?"
_PLATFORM = re.compile(
    rf"^-?\s{{0,4}}Platform:\s{{0,4}}Linux-(?P<release>{_RELEASE})-(?P<machine>x86_64|aarch64)"
    r"-with-"
)
# An NVIDIA GPU's name as torch gives it (not "<fill in>", not an AMD GPU of a ROCm build)
_GPU_TYPE = re.compile(
    r"^-\s{0,4}GPU type:\s{0,4}(?P<name>(?:NVIDIA|Tesla|Quadro|GeForce|TITAN)\b[^\n]{1,80}?)"
    r"\s{0,4}$"
)
_ACCELERATOR = re.compile(r"^-\s{0,4}Accelerator:\s{0,4}(?P<rest>\S[^\n]{1,120}?)\s{0,4}$")
_CSV_GPU = re.compile(r"^(?P<name>(?:NVIDIA|Tesla|Quadro)[^,\n]{1,80}), (?P<mib>\d{3,7}) MiB$")
_UNAME = re.compile(
    rf"\buname_result\(system='Linux', node='[^'\n]{{0,80}}', release='(?P<release>{_RELEASE})'"
    r"[^\n]{0,300}?, machine='(?P<machine>x86_64|aarch64)'\)"
)
_JAX_DEVICES = re.compile(
    r"^device info: (?P<kind>[^\n]{1,80})-(?P<n>\d{1,3}), \d{1,3} local devices\"?\s{0,4}$"
)
_JAX_LIST = re.compile(
    r"^\[(?P<kind>CudaDevice|cuda|gpu|StreamExecutorGpuDevice|RocmDevice|rocm|CpuDevice|cpu|"
    r"TFRT_CPU_0)\(id=0[,)]"
)
_JAX_ID = re.compile(r"\bid=(?P<i>\d{1,3})\b")
_JAX_FALLBACK = re.compile(
    r"\bAn NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
    r"installed\b",
    re.IGNORECASE,
)
_DS_KEY = re.compile(
    r"^(?P<key>torch version|torch cuda version|torch hip version|nvcc version|deepspeed info)"
    r"\s{1,4}\.{3,40}\s{1,4}(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
# "2.1.0+cu121", and an NGC or nightly build's "2.1.0a0+32f93b1", "2.6.0.dev20241112+cu124"
_VERSION = re.compile(
    r"^\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:a\d{1,3}|b\d{1,3}|rc\d{1,3}|\.dev\d{1,10})?"
    r"(?:\+[\w.]{1,40})?$"
)
_BUILT = re.compile(r"^\s{0,4}- (?P<key>CUDA Runtime|CuDNN|HIP Runtime)\s{1,4}(?P<v>\d[\w.]{0,30})")
_NVCC_FLAGS = re.compile(r"^\s{0,4}- NVCC architecture flags:\s{0,4}(?P<flags>[^\n]{1,2000})")
_CODE = re.compile(r"code=(?:\[)?((?:sm|compute)_\d{2,3}[af]?)")
_BUILD_TORCH = re.compile(r"\bTORCH_VERSION=(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\b")
_BUILD_CUDA = re.compile(r"\bUSE_CUDA=(?P<v>ON|OFF|1|0)\b")
_PROPS = re.compile(
    r"_CudaDeviceProperties\(name='(?P<name>[^'\n]{2,80})', major=(?P<major>\d{1,2}), "
    r"minor=(?P<minor>\d{1,2})(?P<rest>[^\n]{0,400})"
)
_GCN = re.compile(r"gcnArchName='(?P<gfx>gfx[0-9a-f]{3,4})")
_MEMORY = re.compile(r"total_memory=(?P<mb>\d{3,7})MB")
_TF_GPU = re.compile(
    r"PhysicalDevice\(name='/physical_device:GPU:(?P<i>\d{1,3})', device_type='GPU'\)"
)
_TF_COUNT = re.compile(r"^Num GPUs Available:\s{1,4}(?P<n>\d{1,3})\s{0,4}$")
_MAX_LINE = 4000
_MAX_READ = 64  # lines read per shape: a log that repeats one is read at its first ones


def parse(text: str, draft: Draft) -> None:
    if "Platform:" in text:
        _platform(text, draft)
    if "GPU type:" in text or "Accelerator:" in text:
        _hf_gpus(text, draft)
    if "uname_result(" in text:
        _uname(text, draft)
    if "local devices" in text:
        _jax_devices(text, draft)
    if "(id=0" in text:
        _jax_list(text, draft)
    if "jaxlib is not installed" in text:
        _jax_fallback(text, draft)
    if "DeepSpeed general environment info" in text:
        _ds_report(text, draft)
    if "PyTorch built with:" in text:
        _torch_config(text, draft)
    if "_CudaDeviceProperties(" in text:
        _props(text, draft)
    if "physical_device:GPU" in text or "list_physical_devices(" in text or "Num GPUs" in text:
        _tf_devices(text, draft)


def _below(text: str, start: int, line: str, size: int) -> str:
    """At most `size` characters after a line (a bounded slice: a paste repeating the line
    must not copy the rest of the text once per repeat)."""
    begin = start + len(line) + 1
    return text[begin : begin + size]


def _platform(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "Platform:"):
        found = _PLATFORM.match(line) if len(line) <= _MAX_LINE else None
        if found:
            put(draft.kernel, "release", found.group("release"))
            put(draft.platform, "machine", found.group("machine"))
            draft.read_at(NAME, text, start)
            return


def _hf_gpus(text: str, draft: Draft) -> None:
    """GPU 0's name (`GPU type`), or each GPU of diffusers' `Accelerator` CSV; only when no
    GPU listing came first."""
    if draft.gpus:
        return
    for start, line in iter_lines(text, text, "GPU type:"):
        found = _GPU_TYPE.match(line)
        if found:
            put(draft.gpu(0), "name", found.group("name"))
            draft.read_at(NAME, text, start)
            return
    for start, line in iter_lines(text, text, "Accelerator:"):
        found = _ACCELERATOR.match(line)
        if found is None:
            continue
        rows = [found.group("rest"), *_below(text, start, line, 8000).split("\n", 65)[:64]]
        for index, row in enumerate(rows):
            gpu = _CSV_GPU.match(row.strip())
            if gpu is None:
                break
            put(draft.gpu(index), "name", gpu.group("name").strip())
            put(draft.gpu(index), "memory_total_bytes", int(gpu.group("mib")) << 20)
            draft.read_at(NAME, text, start)
        return


def _uname(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "uname_result("):
        found = _UNAME.search(line) if len(line) <= _MAX_LINE else None
        if found:
            put(draft.kernel, "release", found.group("release"))
            put(draft.platform, "machine", found.group("machine"))
            draft.read_at(NAME, text, start)
            return


def _jax_devices(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "device info: "):
        found = _JAX_DEVICES.match(line.strip())
        if found is None:
            continue
        kind = found.group("kind").strip()
        if kind.lower() == "cpu":
            draft.note("JAX found no GPU: its devices are CPUs")
        elif draft.gpus or kind.lower() in ("tpu", "metal"):
            return
        else:
            for index in range(min(int(found.group("n")), 64)):
                put(draft.gpu(index), "name", kind)
        draft.read_at(NAME, text, start)
        return


def _jax_list(text: str, draft: Draft) -> None:
    """The list `jax.devices()` prints: the kind of its devices and how many."""
    for start, line in iter_lines(text, text, "(id=0"):
        found = _JAX_LIST.match(line.strip()) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        kind = found.group("kind").lower()
        if kind.startswith(("cpu", "tfrt_cpu")):
            draft.jax.setdefault("cuda_available", False)
            draft.note("JAX found no GPU: its devices are CPUs")
        else:
            count = len(set(_JAX_ID.findall(line)))
            vendor = "ROCm" if kind.startswith("rocm") else "CUDA"
            if vendor == "CUDA":
                draft.jax.setdefault("cuda_available", True)
            draft.note(f"JAX lists {count} {vendor} device(s)")
        draft.read_at(NAME, text, start)
        return


def _jax_fallback(text: str, draft: Draft) -> None:
    """JAX's own word that it has no CUDA backend although an NVIDIA device node is there."""
    for start, line in iter_lines(text, text, "jaxlib is not installed"):
        if len(line) <= _MAX_LINE and _JAX_FALLBACK.search(line):
            draft.jax.setdefault("cpu_only", True)
            draft.jax.setdefault("cuda_available", False)
            draft.note("JAX has no CUDA-enabled jaxlib (no CUDA plugin): it runs on the CPU")
            draft.read_at(NAME, text, start)
            return


def _ds_report(text: str, draft: Draft) -> None:
    begin = text.find("DeepSpeed general environment info")
    for count, (start, line) in enumerate(iter_lines(text, text, " ...")):
        if start < begin:
            continue
        if count >= _MAX_READ:
            break
        found = _DS_KEY.match(line)
        if found is None:
            continue
        key, value = found.group("key"), found.group("v").strip()
        if key == "deepspeed info":
            value = value.split(",")[0].strip()
        if not _VERSION.match(value):
            continue  # "None", "unknown", a path
        if key == "torch version":
            put(draft.torch, "version", value)
        elif key == "torch cuda version":
            put(draft.torch, "cuda", value)
        elif key == "torch hip version":
            put(draft.torch, "hip", value)
        elif key == "nvcc version" and draft.nvcc_version is None:
            draft.nvcc_version = value
        elif key == "deepspeed info":
            draft.packages.setdefault("deepspeed", value)
        draft.read_at(NAME, text, start)


def _torch_config(text: str, draft: Draft) -> None:
    begin = text.find("PyTorch built with:")
    block = text[begin : begin + 16_000]
    lines = block.split("\n", 40)[1:40]
    last = -1
    for number, line in enumerate(lines):
        if _built_line(line, draft):
            last = number
    if last >= 0:
        draft.read_at(NAME, text, begin, last + 2)


def _built_line(line: str, draft: Draft) -> bool:
    """One "  - ..." line of `torch.__config__.show()`; True when it told a fact."""
    built = _BUILT.match(line)
    if built:
        key, value = built.group("key"), built.group("v")
        if key == "CUDA Runtime":
            put(draft.torch, "cuda", value)
        elif key == "CuDNN":
            put(draft.torch, "build_cudnn", value)
        else:
            put(draft.torch, "hip", value)
        return True
    flags = _NVCC_FLAGS.match(line)
    if flags:
        codes = tuple(dict.fromkeys(_CODE.findall(flags.group("flags"))))
        put(draft.torch, "arch_list", codes or None)
        return bool(codes)
    return "Build settings:" in line and _build_settings(line, draft)


def _build_settings(line: str, draft: Draft) -> bool:
    version = _BUILD_TORCH.search(line)
    if version is None:
        return False
    put(draft.torch, "version", version.group("v"))
    cuda = _BUILD_CUDA.search(line)
    if cuda and cuda.group("v") in ("OFF", "0") and "hip" not in draft.torch:
        put(draft.torch, "cpu_only", True)
    return True


def _props(text: str, draft: Draft) -> None:
    for count, (start, line) in enumerate(iter_lines(text, text, "_CudaDeviceProperties(")):
        if count >= _MAX_READ:
            break
        found = _PROPS.search(line) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        name, rest = found.group("name"), found.group("rest")
        gcn = _GCN.search(rest)
        if gcn:  # a ROCm build: the AMD GPU's gfx target
            known = next((i for i, g in draft.amd_gpus.items() if g.get("name") == name), None)
            gpu = draft.amd_gpu(len(draft.amd_gpus) if known is None else known)
            put(gpu, "name", name)
            put(gpu, "gfx", gcn.group("gfx"))
        else:  # the repr says no index: one GPU per name (a repeat is the same GPU)
            index = next((i for i, g in draft.gpus.items() if g.get("name") == name), None)
            target = draft.gpu(len(draft.gpus) if index is None else index)
            put(target, "name", name)
            put(target, "compute_capability", f"{found.group('major')}.{found.group('minor')}")
            memory = _MEMORY.search(rest)
            if memory:
                put(target, "memory_total_bytes", int(memory.group("mb")) << 20)
        if draft.torch_cuda_available is None:
            draft.torch_cuda_available = True  # torch read the device: CUDA works for it
        draft.read_at(NAME, text, start)


def _tf_devices(text: str, draft: Draft) -> None:
    """TensorFlow's own list of the GPUs it can use: a fact about TensorFlow, not the host."""
    seen = {
        m.group("i")
        for _, line in iter_lines(text, text, "physical_device:GPU")
        for m in _TF_GPU.finditer(line)
    }
    if seen:
        draft.tensorflow.setdefault("cuda_available", True)
        draft.note(f"TensorFlow lists {len(seen)} GPU(s) it can use")
        start = text.find("PhysicalDevice(name='/physical_device:GPU")
        draft.read_at(NAME, text, start)
        return
    for start, line in iter_lines(text, text, "list_physical_devices("):
        after = _below(text, start, line, 200).split("\n", 1)[0].strip()
        if ("'GPU'" in line or '"GPU"' in line) and after == "[]":
            _no_tf_gpu(draft, text, start + len(line) + 1)
            return
    for start, line in iter_lines(text, text, "Num GPUs"):
        found = _TF_COUNT.match(line.strip())
        if found is None:
            continue
        if found.group("n") == "0":
            _no_tf_gpu(draft, text, start)
        else:
            draft.tensorflow.setdefault("cuda_available", True)
            draft.note(f"TensorFlow lists {found.group('n')} GPU(s) it can use")
            draft.read_at(NAME, text, start)
        return


def _no_tf_gpu(draft: Draft, text: str, offset: int) -> None:
    draft.tensorflow.setdefault("cuda_available", False)
    draft.note("TensorFlow lists no GPU: it runs on the CPU")
    draft.read_at(NAME, text, offset)
