"""The start-up lines of the programs people run on GPUs, as their own source prints them:

- ollama's server log, `msg="inference compute"` (discover/types.go, `slog` text: key=value,
  a value with spaces in quotes). Up to 0.11: `id=GPU-... library=cuda compute=8.6
  driver=12.4 name="NVIDIA GeForce RTX 3090" total=... available=...`; from 0.12 the backend's
  device name is `name=CUDA0` and the GPU's is `description="NVIDIA GeForce RTX 3090"`, with
  `driver=` after it and `pci_id=0000:01:00.0`. `library=rocm` lines name an AMD GPU by its
  gfx target (`compute=gfx1100`) and, before 0.12, by its PCI ids (`name=1002:744c`); a
  `library=Vulkan` line names an NVIDIA GPU in `description`, without a compute capability.
  `id=cpu library=cpu`, printed when it found no GPU, is the signature catalogue's
  (ollama-no-gpu).
- ollama's ROCm discovery (discover/amd_linux.go): `msg="amdgpu is supported" gpu=0
  gpu_type=gfx1100`, or `msg="amdgpu is not supported (supported types:[gfx1030 gfx1100])"
  gpu_type=gfx1103 gpu=0` (in other releases the list is a `supported_types="[...]"` key).
- ollama 0.1.x (gpu.go): `msg="CUDA Compute Capability detected: 8.6"` (also "[nvidia-ml] NVML
  CUDA Compute Capability detected") and `msg="Discovered GPU libraries:
  [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.545.23.08]"`: GPU 0's compute capability and the
  NVML library, named by its driver version.
- ollama's release: `msg="Listening on 127.0.0.1:11434 (version 0.12.3)"` (routes.go), or in
  0.1.x's plain log lines `routes.go:930: Listening on 127.0.0.1:11434 (version 0.1.20)`.
- `ollama ps`: a loaded model's row, `llama3:70b  bcfb190ca3a7  42 GB  100% GPU  4 minutes from
  now` (cmd/cmd.go ListRunningHandler; a CONTEXT column before UNTIL from 0.6): its PROCESSOR
  cell says where the model runs, "100% GPU", "100% CPU" or split "48%/52% CPU/GPU" (its FAQ,
  "How can I tell if my model was loaded onto the GPU?"). Kept as a note: a model on the CPU is
  what a host without a usable GPU does, and the row does not say why.
- ollama's `server config env="map[...]"` line, the first line every `ollama serve` logs
  (routes.go), and its `msg=offload library=cuda layers.model=49 layers.offload=48 ...
  memory.available="[11.1 GiB]"` line (llm/server.go; `msg="offload to cuda"` in llm/memory.go
  of 0.3 to 0.5) when it loads a model: a part of a log
  that shows the server started or loaded a model on a GPU library is read, as a note.
- llama.cpp's `ggml_cuda_init: found 1 ROCm devices:` list (ggml-cuda.cu under HIP):
  `  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32` (its CUDA
  form, "compute capability 8.6", is a facts_scan rule), and its `system_info: ... | CUDA :
  ARCHS = 500,610,700 | ...` (the build's __CUDA_ARCH_LIST__: the architectures it has kernels
  for, kept as a note); its `load_tensors: offloaded 33/33 layers to GPU` (src/llama-model.cpp,
  `llm_load_tensors:` in older builds, and ollama's own engine's `msg="offloaded 29/29 layers to
  GPU"`) and `load_backend: loaded CUDA backend from ...` (ggml-backend-reg.cpp), notes that it
  runs on a GPU (0 layers offloaded is the signature catalogue's llama-cpp-no-layers-offloaded).
- vLLM's `Automatically detected platform cuda.` (vllm/platforms/__init__.py; its `No platform
  detected` is the signature catalogue's vllm-no-platform).
- vLLM's engine line `Initializing an LLM engine (v0.4.2) with config:` (llm_engine.py; "a V1
  LLM engine" from 0.8) and its aligned `vLLM Version : 0.10.2` of `vllm collect-env`.
- vLLM's engine statistics, logged every few seconds while it serves (engine/metrics.py, and
  v1/metrics/loggers.py with `Engine 000: ` before it): `Avg prompt throughput: 0.0 tokens/s,
  Avg generation throughput: 12.0 tokens/s, Running: 1 reqs, ... GPU KV cache usage: 0.3%`.
  And its start-up lines after the engine line, in vLLM's log format (`INFO 07-17 23:41:16
  [file.py:559] ...`): `Loading model weights took 6.1138 GB` (worker/model_runner.py),
  `Model loading took 2.2845 GiB and 74.27 seconds` (the V1 gpu_model_runner.py), `# GPU
  blocks: 10039, # CPU blocks: 1310` (the executors' `# %s blocks` with the platform's device
  name: `# cuda blocks: 7191` from 0.6.4), the memory profile `the current vLLM instance can use
  total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB` (worker.py) and `GPU
  KV cache size: 1,131,008 tokens` (v1/core/kv_cache_utils.py): a log that starts past the
  engine line still shows vLLM loading its model on the GPU (kept as notes).
- ComfyUI's start-up (comfy/model_management.py; Fooocus carries a copy): `Total VRAM 24564 MB,
  total RAM 64214 MB` (the GPU's memory as torch.cuda.mem_get_info gives it) and `Device: cuda:0
  NVIDIA GeForce RTX 4090 : cudaMallocAsync` (torch's device, its name, the allocator), or
  `Device: cpu`; its `pytorch version:` and `** Python version:` lines are facts_scan's.
- InvokeAI's `Using torch device: NVIDIA GeForce RTX 3080` (invokeai/app/run_app.py, the name
  TorchDevice gives the device: torch's GPU name, or CPU/MPS).
- Ultralytics' and YOLOv5's select_device() banner (ultralytics/utils/torch_utils.py): `CUDA:0
  (NVIDIA GeForce RTX 4090, 24217MiB)` for each device, the others on lines of their own under
  the first, after its `Python-3.11.10 torch-2.5.1+cu124` (read as facts_scan's rule reads it).
- nccl-tests' summary (src/common.cu): `# Out of bounds values : 0 OK` and `# Avg bus bandwidth
  : 84.8558`, a collective test that ran (kept as a note; FAILED is said in it).
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.pasted.clean import bus_id
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import NVIDIA_BRAND, iter_lines, lines_with

NAME = "program start-up logs"
DESCRIPTION = (
    "ollama's server log (`inference compute`, its version, `server config`, offload and ROCm "
    "discovery lines), llama.cpp's `ggml_cuda_init` device list, `system_info`, offloaded "
    "layers and loaded backend, vLLM's platform, engine start-up and statistics lines, "
    "nccl-tests' summary, ComfyUI's and Fooocus' `Total VRAM`/`Device:` lines, InvokeAI's torch "
    "device, Ultralytics' and YOLOv5's select_device banner"
)

# One slog key=value pair: a quoted value (no escapes in the values read here) or a bare word.
_PAIR = re.compile(r"\b(?P<k>[a-z_]{1,20})=(?:\"(?P<q>[^\"\n]{0,200})\"|(?P<v>[^\s\"]{1,200}))")
_CC = re.compile(r"^\d{1,2}\.\d$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")
_PCI_IDS = re.compile(r"^1002:(?P<dev>[0-9a-f]{4})$")
_BACKEND_NAME = re.compile(r"^(?:CUDA|ROCm|Vulkan)\d{1,2}$")
_NVIDIA = re.compile(rf"^{NVIDIA_BRAND}\b")
_DRIVER = re.compile(r"^(?P<v>\d{1,2}\.\d{1,2})$")
_GGML_HIP = re.compile(
    r"^\s{0,8}Device (?P<i>\d{1,2}): (?P<name>[^,\n]{2,80}), (?P<gfx>gfx[0-9a-f]{3,4})\b"
)
_GGML_ARCHS = re.compile(r"\bCUDA : ARCHS = (?P<archs>\d[\d,]{1,160})")
_VLLM_ENGINE = re.compile(r"\bInitializing an? (?:V1 )?LLM engine \(v(?P<v>0\.\d{1,2}\.\d{1,3})")
_VLLM_ALIGNED = re.compile(r"^vLLM Version\s{1,40}:\s{0,4}(?P<v>0\.\d{1,2}\.\d{1,3})\b")
# slog since 0.1.2x (`msg="Listening on ... (version 0.12.3)"`); before it Go's log package
# printed the same format string after its file:line ("routes.go:930: Listening on ...")
_OLLAMA_VERSION = re.compile(
    r"(?:msg=\"|\broutes\.go:\d{1,5}: )Listening on [^\"\n]{1,120} "
    r"\(version (?P<v>0\.\d{1,2}\.\d{1,3})(?:-rc\d{1,2})?\)"
)
_TYPES = re.compile(r"\[(?P<types>gfx[a-z0-9 ]{3,400})\]")
_OLD_CC = re.compile(r"\bCUDA Compute Capability detected: (?P<cc>\d{1,2}\.\d)\"")
_NVML_LIBRARY = re.compile(
    r"msg=\"Discovered GPU libraries: \[[^\]\n]{0,400}?/libnvidia-ml\.so\.(?P<v>\d{3}\.\d{1,3}"
    r"(?:\.\d{1,3})?)[\] ]"
)
# `ollama ps`'s row: NAME, ID (the digest's first 12 hex digits), SIZE, PROCESSOR
_OLLAMA_PS = re.compile(
    r"^\s{0,4}(?P<model>[^\s]{1,120})\s{1,40}[0-9a-f]{12}\s{1,40}[\d.]{1,8} [KMGT]?B\s{1,40}"
    r"(?:(?P<one>\d{1,3})% (?P<unit>GPU|CPU)|(?P<cpu>\d{1,3})%/(?P<gpu>\d{1,3})% CPU/GPU)(?:\s|$)"
)
_OLLAMA_CONFIG = 'server config env="map['
# `msg=offload library=cuda` from 0.6; `msg="offload to cuda"` before it (llm/memory.go 0.3-0.5)
_OLLAMA_OFFLOAD_NEEDLES = ("msg=offload library=", 'msg="offload to ')
_OLLAMA_OFFLOAD = re.compile(
    r"msg=(?:offload library=|\"offload to )(?P<lib>[A-Za-z0-9_]{2,20})\"? [^\n]{0,200}?"
    r"layers\.model=(?P<model>\d{1,4}) layers\.offload=(?P<offload>\d{1,4})"
)
_OLLAMA_AVAILABLE = re.compile(r'memory\.available="\[(?P<mem>[\d.]{1,8} [KMGT]i?B)')
_VLLM_STATS = re.compile(
    r"Avg prompt throughput: [\d.]{1,12} tokens/s, Avg generation throughput: [\d.]{1,12} "
    r"tokens/s, Running: \d{1,6} reqs, [^\n]{0,80}?GPU KV cache usage: (?P<kv>[\d.]{1,6})%"
)
_NCCL_TESTS_WRONG = re.compile(
    r"^# Out of bounds values : (?P<n>\d{1,12}) (?P<verdict>OK|FAILED)\b"
)
_NCCL_TESTS_BW = re.compile(r"^# Avg bus bandwidth {1,8}: (?P<bw>\d[\d.e+]{0,15})")
# vLLM's logger: level, month-day time, then `file.py:line]`, bracketed from 0.8.
_VLLM_PREFIX = (
    r"\b(?:INFO|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? \[?[a-z_0-9]{1,40}\.py:\d{1,5}\] "
)
_VLLM_START = (
    (
        "Model loading took ",
        re.compile(_VLLM_PREFIX + r"Model loading took (?P<v>[\d.]{1,10}) GiB and "),
        "vLLM loaded the model on the GPU ({} GiB)",
    ),
    (
        "Loading model weights took ",
        re.compile(_VLLM_PREFIX + r"Loading model weights took (?P<v>[\d.]{1,10}) GB\b"),
        "vLLM loaded the model weights on the GPU ({} GB)",
    ),
    (
        "# GPU blocks: ",
        re.compile(_VLLM_PREFIX + r"# GPU blocks: (?P<v>\d{1,9}), # CPU blocks: \d{1,9}"),
        "vLLM allocated its KV cache ({} GPU blocks)",
    ),
    (
        "# cuda blocks: ",
        re.compile(_VLLM_PREFIX + r"# cuda blocks: (?P<v>\d{1,9}), # CPU blocks: \d{1,9}"),
        "vLLM allocated its KV cache ({} GPU blocks)",
    ),
    (
        "can use total_gpu_memory (",
        re.compile(
            _VLLM_PREFIX + r"the current vLLM instance can use total_gpu_memory "
            r"\((?P<v>[\d.]{1,8})GiB\) x gpu_memory_utilization"
        ),
        "vLLM profiled the GPU's memory ({} GiB in all)",
    ),
    (
        "GPU KV cache size: ",
        re.compile(_VLLM_PREFIX + r"GPU KV cache size: (?P<v>[\d,]{1,15}) tokens"),
        "vLLM allocated its KV cache ({} tokens on the GPU)",
    ),
)
# llama.cpp's and vLLM's start-up lines that show a GPU in use (the module's docstring)
_GGML_START = (
    (
        " layers to GPU",
        re.compile(
            r"(?:load_tensors: |msg=\")offloaded (?P<v>[1-9]\d{0,3}/\d{1,4}) layers to GPU\b"
        ),
        "{} of the model's layers were offloaded to the GPU (llama.cpp's load log)",
    ),
    (
        "load_backend: loaded ",
        re.compile(
            r"^\s{0,4}load_backend: loaded (?P<v>CUDA|ROCm|Vulkan|SYCL|MUSA|CANN) backend from \S"
        ),
        "llama.cpp loaded its {} backend",
    ),
    (
        "Automatically detected platform ",
        re.compile(_VLLM_PREFIX + r"Automatically detected platform (?P<v>cuda|rocm)\."),
        "vLLM detected its {} platform (a GPU it can use)",
    ),
)
_COMFY_VRAM = re.compile(r"\bTotal VRAM (?P<vram>\d{1,7}) MB, total RAM \d{1,8} MB\b")
_COMFY_DEVICE = re.compile(
    r"\bDevice: (?:cuda:(?P<i>\d{1,2}) (?P<name>[^\n]{2,80}?) : (?:cudaMallocAsync|native)?|"
    r"(?P<cpu>cpu))\s{0,4}$"
)
_AMD = re.compile(r"^(?:AMD|Radeon)\b")
_INVOKE_DEVICE = re.compile(r"\bUsing torch device: (?P<name>[^\n]{2,80}?)\s{0,4}$")
_SELECT_DEVICE = re.compile(
    r"\bCUDA:(?P<i>\d{1,2}) \((?P<name>[^,()\n]{2,80}), (?P<mib>\d{3,7})MiB\)"
)
_BANNER_PYTHON = re.compile(r"\bPython-(?P<v>3\.\d{1,2}\.\d{1,2}) torch-\d")
_MAX_LINE = 2000
_MAX_READ = 64  # lines read per shape: a log of many restarts repeats the same GPUs


def parse(text: str, draft: Draft) -> None:  # noqa: PLR0912 - one test per shape
    if "inference compute" in text:
        _ollama(text, draft)
    if "(version " in text:
        _ollama_version(text, draft)
    if 'msg="amdgpu is ' in text:
        _ollama_amd_discovery(text, draft)
    if "Compute Capability detected: " in text or "Discovered GPU libraries: " in text:
        _ollama_0_1(text, draft)
    if "ggml_cuda_init: found" in text:
        _ggml_hip(text, draft)
    if "CUDA : ARCHS = " in text:
        _ggml_archs(text, draft)
    if "LLM engine (v" in text or "vLLM Version" in text:
        _vllm(text, draft)
    if _OLLAMA_CONFIG in text or any(n in text for n in _OLLAMA_OFFLOAD_NEEDLES):
        _ollama_server(text, draft)
    if "% GPU" in text or "% CPU" in text or "% CPU/GPU" in text:
        _ollama_ps(text, draft)
    if "Avg generation throughput: " in text:
        _vllm_stats(text, draft)
    for needle, pattern, note in _VLLM_START:
        if needle in text:
            _vllm_start(text, draft, needle, pattern, note)
    for needle, pattern, note in _GGML_START:
        if needle in text:
            _vllm_start(text, draft, needle, pattern, note)
    if "# Out of bounds values : " in text:
        _nccl_tests(text, draft)
    if "Device: " in text and ("Total VRAM " in text or "Device: cuda:" in text):
        _comfy(text, draft)
    if "Using torch device: " in text:
        _invokeai(text, draft)
    if "MiB)" in text and "CUDA:" in text:
        _select_device(text, draft)


def _pairs(line: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for found in _PAIR.finditer(line):
        value = found.group("q") if found.group("q") is not None else found.group("v")
        out.setdefault(found.group("k"), value)
    return out


def _ollama(text: str, draft: Draft) -> None:
    for count, (start, line) in enumerate(iter_lines(text, text, 'msg="inference compute"')):
        if count >= _MAX_READ:
            break
        if len(line) > _MAX_LINE:
            continue
        keys = _pairs(line[line.find('msg="inference compute"') :])
        library = keys.get("library", "").lower()
        if library == "cuda":
            _ollama_nvidia(keys, draft)
        elif library == "rocm":
            _ollama_amd(keys, draft)
        elif library == "vulkan" and _NVIDIA.match(keys.get("description", "")):
            # ollama's Vulkan backend on an NVIDIA GPU: its name, no compute capability
            name = keys["description"]
            put(draft.gpu(_index_for(draft, None, name)), "name", name)
        else:
            continue
        draft.read_at(NAME, text, start)


def _ollama_version(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "Listening on "):
        found = _OLLAMA_VERSION.search(line) if len(line) <= _MAX_LINE else None
        if found:
            draft.packages.setdefault("ollama", found.group("v"))
            draft.read_at(NAME, text, start)
            return


def _ollama_ps(text: str, draft: Draft) -> None:
    """`ollama ps`: where each loaded model runs, as a note per row."""
    seen = 0
    for start, line in iter_lines(text, text, "% "):
        found = _OLLAMA_PS.match(line) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        model = found.group("model")
        if found.group("unit") == "GPU":
            where = f"{found.group('one')}% on the GPU"
        elif found.group("unit") == "CPU":
            where = f"{found.group('one')}% on the CPU (no GPU memory used)"
        else:
            where = f"split: {found.group('cpu')}% on the CPU, {found.group('gpu')}% on the GPU"
        draft.note(f"ollama ps: the model {model} is loaded {where}")
        draft.read_at(NAME, text, start)
        seen += 1
        if seen >= _MAX_READ:
            return


def _ollama_0_1(text: str, draft: Draft) -> None:
    """ollama 0.1.x: the compute capability of the GPU it found, and the NVML library file."""
    for needle, pattern in (
        ("Compute Capability detected: ", _OLD_CC),
        ("Discovered GPU libraries: ", _NVML_LIBRARY),
    ):
        for start, line in iter_lines(text, text, needle):
            found = pattern.search(line) if len(line) <= _MAX_LINE else None
            if found is None or "too old" in line:  # "too old" is a signature's line
                continue
            if pattern is _OLD_CC:
                if draft.gpus:
                    break  # a listing came first: it names the GPUs
                put(draft.gpu(0), "compute_capability", found.group("cc"))
            else:
                put(draft.nvml, "library_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break


def _gpu_name(keys: dict[str, str]) -> str | None:
    """The GPU's name: `description` where `name` is the backend's device name (CUDA0)."""
    name, description = keys.get("name", ""), keys.get("description", "")
    if not name or _BACKEND_NAME.match(name) or _PCI_IDS.match(name):
        return description or None
    return name


def _ollama_nvidia(keys: dict[str, str], draft: Draft) -> None:
    name = _gpu_name(keys)
    gpu = draft.gpu(_index_for(draft, keys.get("id"), name))
    put(gpu, "name", name)
    if keys.get("id", "").startswith("GPU-"):
        put(gpu, "uuid", keys["id"])
    if _CC.match(keys.get("compute", "")):
        put(gpu, "compute_capability", keys["compute"])
    put(gpu, "pci_bus_id", bus_id(keys.get("pci_id", "")))
    driver = _DRIVER.match(keys.get("driver", ""))
    if driver and driver.group("v") != "0.0":  # cudaDriverGetVersion, as major.minor
        put(draft.nvml, "cuda_driver_version", driver.group("v"))


def _index_for(draft: Draft, uuid: str | None, name: str | None) -> int:
    """The GPU this line describes: one already read with the same UUID (or, without one, the
    same name), else the next index."""
    for index, gpu in draft.gpus.items():
        if uuid and gpu.get("uuid") == uuid:
            return index
        if not uuid and name and gpu.get("name") == name:
            return index
    return len(draft.gpus)


def _ollama_amd(keys: dict[str, str], draft: Draft) -> None:
    gpu = _amd_gpu(draft, keys.get("id", ""))
    compute = keys.get("compute", "")
    if _GFX.match(compute):
        put(gpu, "gfx", compute)
    ids = _PCI_IDS.match(keys.get("name", ""))
    if ids:
        put(gpu, "device_id", "0x" + ids.group("dev"))
    name = _gpu_name(keys)
    if name and not _PCI_IDS.match(name):
        put(gpu, "name", name)
    draft.note("ollama runs on an AMD GPU through ROCm")


def _ollama_amd_discovery(text: str, draft: Draft) -> None:
    for count, (start, line) in enumerate(iter_lines(text, text, 'msg="amdgpu is ')):
        if count >= _MAX_READ:
            break
        if len(line) > _MAX_LINE:
            continue
        at = line.find('msg="amdgpu is ')
        keys = _pairs(line[at:])
        gfx = keys.get("gpu_type", "").split(":")[0]  # "gfx90a:sramecc+:xnack-"
        if not _GFX.match(gfx):
            continue
        put(_amd_gpu(draft, keys.get("gpu", "")), "gfx", gfx)
        if line.startswith('msg="amdgpu is not supported', at):
            types = _TYPES.search(line, at)
            listed = f" (this build supports {types.group('types')})" if types else ""
            draft.note(f"ollama does not support the AMD GPU {gfx}{listed}: it is not used")
        draft.read_at(NAME, text, start)


def _amd_gpu(draft: Draft, ident: str) -> dict[str, Any]:
    index = int(ident) if ident.isdecimal() and len(ident) <= 2 else len(draft.amd_gpus)
    return draft.amd_gpu(index)


def _ggml_hip(text: str, draft: Draft) -> None:
    """The device list under `ggml_cuda_init: found N ROCm devices:` (a HIP build)."""
    for start, line in iter_lines(text, text, "ggml_cuda_init: found"):
        if "ROCm devices" not in line:
            continue
        pos = start + len(line) + 1
        for row in text[pos : pos + 4000].split("\n", 17)[:16]:
            found = _GGML_HIP.match(row)
            if found is None:
                break
            gpu = draft.amd_gpu(int(found.group("i")))
            put(gpu, "name", found.group("name").strip())
            put(gpu, "gfx", found.group("gfx"))
            draft.read_at(NAME, text, pos)
            pos += len(row) + 1
        return


def _ggml_archs(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "CUDA : ARCHS = "):
        found = _GGML_ARCHS.search(line) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        numbers = [a for a in found.group("archs").split(",") if a.isdecimal() and len(a) <= 4]
        if not numbers:
            continue
        archs = ", ".join(f"sm_{int(a) // 10}" for a in numbers)
        draft.note(f"llama.cpp was built with CUDA kernels for {archs} (its system_info)")
        draft.read_at(NAME, text, start)
        return


def _vllm(text: str, draft: Draft) -> None:
    for needle, pattern in (("LLM engine (v", _VLLM_ENGINE), ("vLLM Version", _VLLM_ALIGNED)):
        for start, line in iter_lines(text, text, needle):
            found = pattern.search(line) if len(line) <= _MAX_LINE else None
            if found:
                draft.packages.setdefault("vllm", found.group("v"))
                draft.read_at(NAME, text, start)
                return


def _ollama_server(text: str, draft: Draft) -> None:
    """ollama's server start-up line and its model-load line: what the log shows of the GPU."""
    for start, _line in iter_lines(text, text, _OLLAMA_CONFIG):
        draft.note("ollama's server started (its `server config` line)")
        draft.read_at(NAME, text, start)
        break
    for start, line in lines_with(text, text, _OLLAMA_OFFLOAD_NEEDLES):
        found = _OLLAMA_OFFLOAD.search(line) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        available = _OLLAMA_AVAILABLE.search(line)
        memory = f", {available.group('mem')} of GPU memory available" if available else ""
        draft.note(
            f"ollama loaded a model with its {found.group('lib')} library: "
            f"{found.group('offload')} of {found.group('model')} layers on the GPU{memory}"
        )
        draft.read_at(NAME, text, start)
        return


def _vllm_stats(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "Avg generation throughput: "):
        found = _VLLM_STATS.search(line) if len(line) <= _MAX_LINE else None
        if found:
            draft.note(
                f"vLLM was serving (its engine statistics: GPU KV cache usage {found.group('kv')}%)"
            )
            draft.read_at(NAME, text, start)
            return


def _nccl_tests(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "# Out of bounds values : "):
        found = _NCCL_TESTS_WRONG.match(line.strip())
        if found is None:
            continue
        after = text[start + len(line) + 1 : start + len(line) + 200].split("\n", 1)[0]
        bw = _NCCL_TESTS_BW.match(after.strip())
        bus = f", average bus bandwidth {bw.group('bw')} GB/s" if bw else ""
        draft.note(
            f"nccl-tests ran: {found.group('n')} wrong values ({found.group('verdict')}){bus}"
        )
        draft.read_at(NAME, text, start, 2 if bw else 1)
        return


def _vllm_start(text: str, draft: Draft, needle: str, pattern: re.Pattern[str], note: str) -> None:
    """The first line holding `needle` that `pattern` matches, read as `note` (vLLM's and
    llama.cpp's start-up lines)."""
    for start, line in iter_lines(text, text, needle):
        found = pattern.search(line) if len(line) <= _MAX_LINE else None
        if found:
            draft.note(note.format(found.group("v")))
            draft.read_at(NAME, text, start)
            return


def _torch_gpu(draft: Draft, index: int, name: str, listed: bool) -> dict[str, Any]:
    """The GPU torch names at `index`; by its name when a GPU listing came first (the listing's
    order need not be torch's)."""
    return draft.gpu(_index_for(draft, None, name) if listed else index)


def _comfy(text: str, draft: Draft) -> None:
    """ComfyUI's (and Fooocus') device line and the GPU memory it found."""
    listed = bool(draft.gpus)
    for start, line in iter_lines(text, text, "Device: "):
        found = _COMFY_DEVICE.search(line) if len(line) <= _MAX_LINE else None
        if found is None:
            continue
        if found.group("cpu"):
            draft.note("ComfyUI runs on the CPU (its `Device: cpu` line)")
            draft.read_at(NAME, text, start)
            return
        name = found.group("name").strip()
        if _AMD.match(name):
            put(draft.amd_gpu(int(found.group("i"))), "name", name)
        elif _NVIDIA.match(name):
            gpu = _torch_gpu(draft, int(found.group("i")), name, listed)
            put(gpu, "name", name)
            vram = _COMFY_VRAM.search(text[max(0, start - 4000) : start])
            if vram:
                put(gpu, "memory_total_bytes", int(vram.group("vram")) << 20)
        else:
            continue
        draft.read_at(NAME, text, start)
        return


def _invokeai(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "Using torch device: "):
        found = _INVOKE_DEVICE.search(line) if len(line) <= _MAX_LINE else None
        if found and _NVIDIA.match(found.group("name")):
            name = found.group("name")
            put(_torch_gpu(draft, 0, name, bool(draft.gpus)), "name", name)
            draft.read_at(NAME, text, start)
            return


def _select_device(text: str, draft: Draft) -> None:
    """Each `CUDA:N (name, memory)` of the select_device banner."""
    listed = bool(draft.gpus)
    for count, (start, line) in enumerate(iter_lines(text, text, "MiB)")):
        if count >= _MAX_READ or len(line) > _MAX_LINE:
            break
        python = _BANNER_PYTHON.search(line)
        if python:
            put(draft.platform, "python_version", python.group("v"))
        for found in _SELECT_DEVICE.finditer(line):
            name = found.group("name").strip()
            if not _NVIDIA.match(name):
                continue
            gpu = _torch_gpu(draft, int(found.group("i")), name, listed)
            put(gpu, "name", name)
            put(gpu, "memory_total_bytes", int(found.group("mib")) << 20)
            draft.read_at(NAME, text, start)
