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
  found no GPU; also as `jax.print_environment_info()` prints it ("jax.devices (1 total, 1
  local): [CpuDevice(id=0)]", jax/_src/environment_info.py).
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
- The environment tables of the libraries built on torch, one `Key: value` a line: OpenMMLab's
  `collect_env` (mmengine/utils/dl_utils/collect_env.py, printed by mmcv, mmdet, mmseg, ...) and
  sglang's `python -m sglang.check_env` (python/sglang/check_env.py) print "Python: 3.8.18
  (default, ...)", "CUDA available: True", "GPU 0,1: NVIDIA GeForce RTX 3090" (one line per GPU
  name, torch's names, the indices joined), sglang's "GPU 0,1 Compute Capability: 9.0" and "CUDA
  Driver Version: 550.127.08" (nvidia-smi's driver), and "PyTorch: 1.13.1+cu117"; detectron2's
  `python -m detectron2.utils.collect_env` (detectron2/utils/collect_env.py) prints the same in a
  tabulate table, key and value split by spaces: "PyTorch   2.0.1+cu118 @/path/torch", "GPU 0,1
  Tesla V100-SXM2-16GB (arch=7.0)", "Driver version   535.104.05", "GPU available   Yes".
- `python -m xformers.info` (xformers/info.py): "pytorch.version:   2.1.2+cu121",
  "pytorch.cuda:   available" (or "not available"), "gpu.name:", "gpu.compute_capability:", and
  the build's own "build.torch_version:" (a torch other than the installed one: its C++/CUDA
  extensions do not load). Its warning at import names the installed torch and Python after
  the ones it was built for (xformers/_cpp_lib.py): "xFormers was built for: PyTorch 2.2.0+cu121
  with CUDA 1201 (you have 2.2.0+cpu)", "Python  3.11.7 (you have 3.11.0)": the "you have" ones
  are this environment's, the others only the build's.
- `cupy.show_config()` ("Python Version   : 3.10.12", "Device 0 Name   : NVIDIA GeForce RTX
  3080", "Device 0 Compute Capability   : 86") and `numba -s` (numba/misc/numba_sysinfo.py:
  "Python Version   : 3.11.7", "CUDA Driver Version   : (12, 2)", and its CUDA detect list
  "id 0    b'NVIDIA GeForce RTX 3090'   [SUPPORTED]").
- torch's collect_env as JSON, the "Torch env info" of AUTOMATIC1111's sysinfo
  (modules/sysinfo.py: `get_env_info()._asdict()`): "torch_version": "2.1.2+cu121",
  "cuda_compiled_version", "nvidia_driver_version", "nvidia_gpu_models" (a string, or a list of
  "GPU 0: ..." lines), "python_version", "is_cuda_available", "python_platform".
- PaddlePaddle's `paddle.utils.run_check()` summary (python/paddle/utils/install_check.py):
  "PaddlePaddle works well on 1 GPU." and, after its data-parallel run, "... on 4 GPUs." (kept
  as a note; its failure lines are the signature catalogue's).
- onnxruntime's `get_available_providers()` list with a GPU provider in it
  ("['CUDAExecutionProvider', 'CPUExecutionProvider']"): its GPU build loaded.
"""

from __future__ import annotations

import re

from gpudoctor.pasted import collect_env
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import NVIDIA_BRAND, iter_lines

NAME = "framework environment"
DESCRIPTION = (
    "`transformers env` / `accelerate env` / `diffusers-cli env`, "
    "`jax.print_environment_info()`, `jax.devices()`, `ds_report`, `torch.__config__.show()`, "
    "`torch.cuda.get_device_properties`, `tf.config.list_physical_devices('GPU')`, "
    "OpenMMLab's and detectron2's `collect_env`, `python -m sglang.check_env`, "
    "`python -m xformers.info`, `cupy.show_config()`, `numba -s`, AUTOMATIC1111's sysinfo JSON, "
    "onnxruntime's `get_available_providers()`, PaddlePaddle's `run_check()`"
)

_RELEASE = r"\d\.\d{1,2}\.\d{1,3}(?:[.-][\w.+~-]{0,60}?)?"
_PLATFORM = re.compile(
    rf"^-?\s{{0,4}}Platform:\s{{0,4}}Linux-(?P<release>{_RELEASE})-(?P<machine>x86_64|aarch64)"
    r"-with-"
)
# An NVIDIA GPU's name as torch gives it (not "<fill in>", not an AMD GPU of a ROCm build)
_GPU_TYPE = re.compile(
    r"^-\s{0,4}GPU type:\s{0,4}(?P<name>" + NVIDIA_BRAND + r"\b[^\n]{1,80}?)"
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
# `jax.devices()` alone, or the line `jax.print_environment_info()` prints of it (numpy's str
# of the device array: "jax.devices (2 total, 2 local): [cuda(id=0) cuda(id=1)]")
_JAX_LIST = re.compile(
    r"^(?:jax\.devices \(\d{1,5} total, (?P<local>\d{1,4}) local\): )?"
    r"\[(?P<kind>CudaDevice|cuda|gpu|StreamExecutorGpuDevice|RocmDevice|rocm|CpuDevice|cpu|"
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
# The `Key: value` (OpenMMLab, sglang) or tabulate (detectron2) environment tables: the key, then
# ": " or the table's padding.
_SEP = r"(?::[ \t]{1,4}|[ \t]{2,40})"
_TORCH_VERSION = (
    r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:a\d{1,3}|b\d{1,3}|rc\d{1,3}|\.dev\d{1,10})?"
    r"(?:\+[\w.]{1,40})?"
)
_TORCH_NAMES = NVIDIA_BRAND + r"\b"
_ENV_PYTHON = re.compile(rf"^Python{_SEP}(?P<v>3\.\d{{1,2}}\.\d{{1,2}})\b")
_ENV_TORCH = re.compile(rf"^PyTorch{_SEP}(?P<v>{_TORCH_VERSION})(?: @\S{{0,300}})?$")
_ENV_GPU = re.compile(
    rf"^GPU (?P<ids>\d[\d,]{{0,200}}){_SEP}(?P<name>{_TORCH_NAMES}[^\n]{{1,80}}?)"
    r"(?: \(arch=(?P<cc>\d{1,2}\.\d)\))?$"
)
_ENV_CC = re.compile(r"^GPU (?P<ids>\d[\d,]{0,200}) Compute Capability: (?P<cc>\d{1,2}\.\d)$")
_ENV_DRIVER = re.compile(
    rf"^(?:CUDA Driver Version|Driver version){_SEP}(?P<v>\d{{3}}\.\d{{1,3}}(?:\.\d{{1,3}})?)$"
)
_ENV_AVAILABLE = re.compile(rf"^(?:CUDA available|GPU available){_SEP}(?P<v>True|False|Yes|No)\b")
_ENV_LINES = 300  # the longest table (torch's build details included) is under 100 lines
_XF_VERSION = re.compile(r"^xFormers (?P<v>\d{1,2}\.\d{1,2}\.\d{1,4}(?:\.post\d{1,2})?)\s{0,4}$")
# xformers/_cpp_lib.py: "xFormers was built for:\n    PyTorch 2.1.2+cu121 with CUDA 1201 (you
# have 2.1.2+cpu)\n    Python  3.10.11 (you have 3.10.11)"
_XF_BUILT = re.compile(
    r"xFormers was built for:\s{0,16}PyTorch \d{1,2}\.\d{1,2}\.\d{1,3}\S{0,30} "
    r"(?:with CUDA (?:\d{3,5}|None) )?\(you have (?P<have>\d{1,2}\.\d{1,2}\.\d{1,3}[\w.+]{0,30})\)"
)
_XF_PYTHON = re.compile(
    r"Python\s{1,4}3\.\d{1,2}\.\d{1,3} \(you have (?P<have>3\.\d{1,2}\.\d{1,3})\)"
)
_XF_KEY = re.compile(
    r"^(?P<k>pytorch\.version|pytorch\.cuda|gpu\.name|gpu\.compute_capability|"
    r"build\.torch_version):\s{1,60}(?P<v>\S[^\n]{0,100}?)\s{0,4}$"
)
_ALIGNED_PYTHON = re.compile(r"^Python Version\s{1,40}:\s{0,4}(?P<v>3\.\d{1,2}\.\d{1,2})\s{0,4}$")
_CUPY_DEVICE = re.compile(
    r"^Device (?P<i>\d{1,2}) (?:Name\s{1,40}:\s{0,4}(?P<name>\S[^\n]{1,80}?)|"
    r"Compute Capability\s{1,40}:\s{0,4}(?P<cc>\d{2,3}))\s{0,4}$"
)
_NUMBA_DEVICE = re.compile(r"^id (?P<i>\d{1,2})\s{1,10}b'(?P<name>[^'\n]{2,80})'\s{1,80}\[")
_NUMBA_DRIVER = re.compile(
    r"^CUDA Driver Version\s{1,40}:\s{0,4}\((?P<major>\d{1,2}), (?P<minor>\d{1,2})\)\s{0,4}$"
)
# torch's collect_env fields as JSON (AUTOMATIC1111's sysinfo), by collect_env's own keys
_JSON_KEYS = {
    "torch_version": "pytorch version",
    "cuda_compiled_version": "cuda used to build pytorch",
    "hip_compiled_version": "rocm used to build pytorch",
    "nvidia_driver_version": "nvidia driver version",
    "nvidia_gpu_models": "gpu models and configuration",
    "python_version": "python version",
    "python_platform": "python platform",
    "is_cuda_available": "is cuda available",
}
# quoted as pasted, or unquoted (clean.py writes a JSON document's members as `key: value`)
_JSON_KEY = re.compile(
    r'^\s{0,16}"?(?P<k>' + "|".join(_JSON_KEYS) + r')"?:[ \t]{0,2}(?P<rest>[^\n]{0,400})$'
)
_JSON_ITEM = re.compile(r'^\s{0,24}"?(?P<v>GPU \d{1,3}: [^"\n]{2,120}?)"?,?\s{0,4}$')
_PADDLE_WELL = re.compile(
    r"^PaddlePaddle works well on (?P<n>\d{1,4}) (?P<device>GPU|CPU|XPU|NPU)s?\.\s{0,4}$"
)
_ORT_LIST = re.compile(r"\[\s{0,2}'[A-Za-z]{2,40}ExecutionProvider'")
_ORT_PROVIDER = re.compile(r"'(?P<p>[A-Za-z]{2,40})ExecutionProvider'")
_ORT_GPU = ("CUDA", "Tensorrt", "ROCM", "MIGraphX")
_MAX_LINE = 4000
_MAX_READ = 64  # lines read per shape: a log that repeats one is read at its first ones


def parse(text: str, draft: Draft) -> None:  # noqa: PLR0912 - one test per shape
    # before torch's build details: "PyTorch: 2.0.1+cu118" names the build, TORCH_VERSION=2.0.1
    # of the details does not
    if "sys.platform" in text or "CUDA available:" in text:
        _env_table(text, draft)
    if "pytorch.version:" in text:
        _xformers_info(text, draft)
    if "xFormers was built for" in text:
        _xformers_built_for(text, draft)
    if "CuPy Version" in text or "__CUDA Information__" in text:
        _cupy_numba(text, draft)
    if "torch_version" in text and "cuda_compiled_version" in text:
        _env_json(text, draft)
    if "ExecutionProvider'" in text:
        _ort_providers(text, draft)
    if "PaddlePaddle works well on " in text:
        _paddle_check(text, draft)
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
        if kind.lower() == "cpu":  # JAX's answer, as `jax.devices()` listing CpuDevice gives it
            draft.jax.setdefault("cuda_available", False)
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
            # numpy elides a long device array ("... cuda(id=7)"): its local count says how many
            local = found.group("local")
            count = int(local) if local else len(set(_JAX_ID.findall(line)))
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


def _ids(text: str) -> list[int]:
    """The indices of "0,1,2,3" (a torch device index has at most 3 digits)."""
    return [int(i) for i in text.split(",") if i.isdecimal() and len(i) <= 3][:64]


def _env_table(text: str, draft: Draft) -> None:
    """OpenMMLab's, sglang's and detectron2's environment tables (see the module's docstring)."""
    begin = min(p for p in (text.find("sys.platform"), text.find("CUDA available:")) if p >= 0)
    begin = text.rfind("\n", 0, begin) + 1
    listed = bool(draft.gpus)  # a GPU listing came first (nvidia-smi): it names the GPUs
    pos = begin
    for line in text[begin : begin + 60_000].split("\n", _ENV_LINES)[:_ENV_LINES]:
        _env_line(line.rstrip(), listed, draft, text, pos)
        pos += len(line) + 1


def _env_line(line: str, listed: bool, draft: Draft, text: str, pos: int) -> None:
    found = _ENV_GPU.match(line)
    if found:
        if not listed:
            for index in _ids(found.group("ids")):
                put(draft.gpu(index), "name", found.group("name"))
                put(draft.gpu(index), "compute_capability", found.group("cc"))
            draft.read_at(NAME, text, pos)
        return
    cc = _ENV_CC.match(line)
    if cc:
        for index in _ids(cc.group("ids")) if not listed else ():
            if index in draft.gpus:
                put(draft.gpus[index], "compute_capability", cc.group("cc"))
        return
    for pattern in (_ENV_PYTHON, _ENV_TORCH, _ENV_DRIVER, _ENV_AVAILABLE):
        found = pattern.match(line)
        if found:
            _env_value(pattern, found.group("v"), draft)
            draft.read_at(NAME, text, pos)
            return


def _env_value(pattern: re.Pattern[str], value: str, draft: Draft) -> None:
    if pattern is _ENV_PYTHON:
        put(draft.platform, "python_version", value)
    elif pattern is _ENV_TORCH:
        put(draft.torch, "version", value)
    elif pattern is _ENV_DRIVER:
        put(draft.nvml, "driver_version", value)
    elif draft.torch_cuda_available is None:
        draft.torch_cuda_available = value in ("True", "Yes")


def _xformers_info(text: str, draft: Draft) -> None:
    """`python -m xformers.info`: the torch it runs with, the GPU it sees, the torch it was built
    for."""
    begin = text.find("pytorch.version:")
    start = text.rfind("xFormers ", max(0, begin - 20_000), begin)
    start = text.rfind("\n", 0, start if start >= 0 else begin) + 1
    values: dict[str, str] = {}
    pos = start
    for line in text[start : start + 40_000].split("\n", 200)[:200]:
        head = _XF_VERSION.match(line.strip())
        if head and "xformers" not in draft.packages:
            draft.packages["xformers"] = head.group("v")
        found = _XF_KEY.match(line.strip())
        if found:
            values.setdefault(found.group("k"), found.group("v"))
            draft.read_at(NAME, text, pos)
        pos += len(line) + 1
    torch = values.get("pytorch.version", "")
    if _VERSION.match(torch):
        put(draft.torch, "version", torch)
    if "pytorch.cuda" in values and draft.torch_cuda_available is None:
        draft.torch_cuda_available = values["pytorch.cuda"] == "available"
    name = values.get("gpu.name", "")
    if name and not draft.gpus and re.match(_TORCH_NAMES, name):
        put(draft.gpu(0), "name", name)
        cc = values.get("gpu.compute_capability", "")
        put(draft.gpu(0), "compute_capability", cc if re.match(r"^\d{1,2}\.\d$", cc) else None)
    built = values.get("build.torch_version", "")
    if _VERSION.match(built) and _VERSION.match(torch) and built != torch:
        draft.note(
            f"xFormers was built for torch {built}, the installed torch is {torch}: its C++/CUDA "
            "extensions do not load with another torch (xformers.info)"
        )


def _xformers_built_for(text: str, draft: Draft) -> None:
    """xFormers' warning: the torch and Python it runs with, read before the prose rules take
    the build's "PyTorch 2.2.0+cu121" for the installed torch."""
    found = _XF_BUILT.search(text)
    if found is None:
        return
    put(draft.torch, "version", found.group("have"))
    draft.read_at(NAME, text, found.start("have"))
    python = _XF_PYTHON.search(text, found.end(), found.end() + 400)
    if python is not None:
        put(draft.platform, "python_version", python.group("have"))


def _cupy_numba(text: str, draft: Draft) -> None:
    """`cupy.show_config()` and `numba -s`: Python, the GPUs each lists, numba's driver CUDA."""
    listed = bool(draft.gpus)
    for start, line in iter_lines(text, text, "Python Version"):
        found = _ALIGNED_PYTHON.match(line.strip())
        if found:
            put(draft.platform, "python_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break
    for count, (start, line) in enumerate(iter_lines(text, text, "Device ")):
        found = _CUPY_DEVICE.match(line.strip()) if count < _MAX_READ else None
        if found is None or listed:
            continue
        gpu = draft.gpu(int(found.group("i")))
        if found.group("name") and re.match(_TORCH_NAMES, found.group("name")):
            put(gpu, "name", found.group("name"))
        elif found.group("cc"):
            number = int(found.group("cc"))
            put(gpu, "compute_capability", f"{number // 10}.{number % 10}")
        draft.read_at(NAME, text, start)
    for count, (start, line) in enumerate(iter_lines(text, text, "id ")):
        found = _NUMBA_DEVICE.match(line.strip()) if count < _MAX_READ else None
        if found and not listed and re.match(_TORCH_NAMES, found.group("name")):
            put(draft.gpu(int(found.group("i"))), "name", found.group("name"))
            draft.read_at(NAME, text, start)
    for start, line in iter_lines(text, text, "CUDA Driver Version"):
        found = _NUMBA_DRIVER.match(line.strip())
        if found:
            version = f"{found.group('major')}.{found.group('minor')}"
            put(draft.nvml, "cuda_driver_version", version)
            draft.read_at(NAME, text, start)
            break


def _env_json(text: str, draft: Draft) -> None:
    """torch's collect_env fields as JSON: each value read as collect_env reads its line."""
    begin = text.find("torch_version")
    begin = text.rfind("\n", 0, begin) + 1
    lines = text[begin : begin + 200_000].split("\n", 400)[:400]
    pos = begin
    for number, line in enumerate(lines):
        found = _JSON_KEY.match(line)
        if found:
            key = _JSON_KEYS[found.group("k")]
            rest = found.group("rest").strip().rstrip(",").strip()
            if rest in ("", "["):  # a list, one GPU an item
                for item in lines[number + 1 : number + 65]:
                    gpu = _JSON_ITEM.match(item)
                    if gpu is None:
                        break
                    collect_env.key_line(key, gpu.group("v"), draft)
            elif rest == "null":
                if key == "cuda used to build pytorch":  # torch.version.cuda is None
                    collect_env.key_line(key, "None", draft)
            else:
                collect_env.key_line(key, rest.strip('"'), draft)
            draft.read_at(NAME, text, pos)
        pos += len(line) + 1


def _ort_providers(text: str, draft: Draft) -> None:
    """onnxruntime's provider list: a GPU provider in it says its GPU build loaded (a list of
    the CPU alone is a signature's line)."""
    for start, line in iter_lines(text, text, "ExecutionProvider'"):
        if len(line) > _MAX_LINE or _ORT_LIST.search(line) is None:
            continue
        providers = _ORT_PROVIDER.findall(line)
        gpu = [p for p in providers if p in _ORT_GPU]
        if gpu and "CPU" in providers:
            names = ", ".join(f"{p}ExecutionProvider" for p in gpu)
            draft.note(f"onnxruntime lists its GPU execution providers ({names})")
            draft.read_at(NAME, text, start)
            return


def _paddle_check(text: str, draft: Draft) -> None:
    """What `paddle.utils.run_check()` says worked: on how many of which device."""
    said = []
    for count, (start, line) in enumerate(iter_lines(text, text, "PaddlePaddle works well on ")):
        found = _PADDLE_WELL.match(line.strip()) if count < _MAX_READ else None
        if found:
            n, device = found.group("n"), found.group("device")
            said.append(f"{n} {device}" + ("" if n == "1" else "s"))
            draft.read_at(NAME, text, start)
    if said:
        draft.note(f"PaddlePaddle's run_check worked on {' and on '.join(said)} (as it says)")
