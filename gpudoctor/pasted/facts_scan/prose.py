"""The words that say what a text is about (`Draft.named`, never facts): frameworks and
programs, AMD or Apple hardware, a host with or without a GPU, the NVIDIA driver or a GPU
named without a version, an image build, a container run, CUDA_HOME."""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.facts_scan.jetson import _jetson_named
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx

# CTranslate2 and the programs built on it (faster-whisper, whisperX) bring no cuDNN or cuBLAS
# of their own: named, a cuDNN load failure means a library path to set, not a framework to
# reinstall (checks/pasted_report.py).
_NAMED = {
    "jaxlib": "jax",
    "pytorch": "torch",
    "faster-whisper": "ctranslate2",
    "faster_whisper": "ctranslate2",
    "whisperx": "ctranslate2",
    # the programs people run on GPUs, by the names their users write (one word each)
    "llama-cpp": "llama.cpp",
    "llama_cpp": "llama-cpp-python",
    "llama_cpp_python": "llama-cpp-python",
    "text_generation_inference": "text-generation-inference",
    "text_generation_launcher": "text-generation-inference",
    "automatic1111": "stable-diffusion-webui",
    "a1111": "stable-diffusion-webui",
    "sd-webui-forge": "stable-diffusion-webui-forge",
    "flash_attn": "flash-attn",
    "flash-attention": "flash-attn",
    "tensorrt_llm": "tensorrt-llm",
}

# the programs' names as people write them (the rule's needles, lower case)
_PROGRAM_NEEDLES = (
    "ollama",
    "vllm",
    "sglang",
    "llama.cpp",
    "llama-cpp",
    "llama_cpp",
    "comfyui",
    "text-generation-inference",
    "text_generation",
    "automatic1111",
    "a1111",
    "stable-diffusion-webui",
    "sd-webui-forge",
    "invokeai",
    "fooocus",
    "koboldcpp",
    "bitsandbytes",
    "xformers",
    "flash-attn",
    "flash_attn",
    "flash-attention",
    "deepspeed",
    "tensorrt-llm",
    "tensorrt_llm",
)


def _named(m: re.Match[str], d: Draft) -> bool:
    """A framework named in prose ("pip install jax", "import torch"): not a version, only
    that the text is about it (kept apart from facts: it is not a line read)."""
    word = m.group("name").lower()
    d.named.append((_NAMED.get(word, word), d.scan_line))
    return False


def _apple_named(m: re.Match[str], d: Draft) -> bool:
    """A Mac named in prose ("MacBook M2", "macOS 14", "Apple silicon"): no NVIDIA GPU there."""
    d.named.append(("apple", d.scan_line))
    return False


def _amd_named(m: re.Match[str], d: Draft) -> bool:
    """An AMD GPU named in prose ("my system is all AMD", "Radeon RX 7900")."""
    d.named.append(("amd", d.scan_line))
    return False


def _cpu_host_named(m: re.Match[str], d: Draft) -> bool:
    """A reporter saying the machine or image has no NVIDIA GPU ("the CPU docker image", "I
    don't have any NVIDIA hardware"): what it prints about a missing driver is expected."""
    d.named.append(("cpu-only", d.scan_line))
    return False


def _gpu_host_named(m: re.Match[str], d: Draft) -> bool:
    """A reporter saying the machine has a GPU meant for the program ("I have an NVIDIA GPU",
    "it runs on the CPU instead of the GPU"): a framework's note that its CUDA libraries are
    expected to be missing where no GPU is set up does not apply to that host. Not on a line
    that says the machine has none ("I don't have a GPU, so CUDA is not available")."""
    if ("cpu-only", d.scan_line) in d.named:
        return False
    d.named.append(("gpu-host", d.scan_line))
    return False


def _nvidia_driver_named(m: re.Match[str], d: Draft) -> bool:
    """The NVIDIA driver named in prose, with no version: what the paste is about (words.py
    says so and asks for nvidia-smi); never a fact about the driver."""
    if ("nvidia-driver", d.scan_line) not in d.named:
        d.named.append(("nvidia-driver", d.scan_line))
    return False


def _nvidia_gpu_named(m: re.Match[str], d: Draft) -> bool:
    """An NVIDIA GPU named in prose, with no model: not on a line that already said the machine
    has a GPU (`_gpu_host_named`) or has none (`_cpu_host_named`)."""
    said = {word for word, line in d.named if line == d.scan_line}
    if said & {"gpu-host", "cpu-only", "nvidia-gpu"}:
        return False
    d.named.append(("nvidia-gpu", d.scan_line))
    return False


def _build_named(m: re.Match[str], d: Draft) -> bool:
    """An image build (`docker build`, its "Step 3/9 : RUN" or BuildKit "#8 [2/5] RUN" lines):
    its steps run without GPUs."""
    d.named.append(("docker-build", d.scan_line))
    return False


def _container_run_named(m: re.Match[str], d: Draft) -> bool:
    """A container started or entered (`docker run`, `docker exec`, `podman run`): the
    program's lines may come from inside it, where the driver is the host's, mounted or not."""
    d.named.append(("container-run", d.scan_line))
    return False


def _cuda_home_named(m: re.Match[str], d: Draft) -> bool:
    """CUDA_HOME / CUDA_PATH named, or a CUDA install said to be missing: the paste is about a
    CUDA toolkit (its version, where a folder names one, is the toolkit rules')."""
    d.named.append(("cuda", d.scan_line))
    return False


RULES: tuple[_Rule, ...] = (
    _Rule("amd", _rx(r"\b(?P<name>amd) (?:gpu|graphics|card)|\ball[- ](?P<all>amd)\b"), _amd_named),
    _Rule("radeon", _rx(r"\b(?P<name>radeon)\b"), _amd_named),
    _Rule(
        ("mac", "apple", "darwin"),
        # and a Mac by its chip or model, as people write it: "an M1 Mac", "M2 Max MacBook",
        # "Mac mini", "Mac Studio", "iMac"
        _rx(
            r"\bmacbook\b|\bmacos\b|\bmac os x\b|\bapple (?:silicon|m[1-5])\b|\bdarwin\b|"
            r"\bm[1-5](?: pro| max| ultra)? mac\b|\bmac (?:mini|studio)\b|\bimac\b"
        ),
        _apple_named,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        ("cpu", "t have", "no nvidia gpu", "no gpu"),
        _rx(
            r"\bcpu(?:[- ]only)? (?:docker )?(?:image|container|machine|host|node|instance|"
            r"server)\b|\bi (?:do not|don't|dont) have (?:an? |any )?(?:nvidia )?(?:gpu|"
            r"graphics card|hardware)\b|\bno (?:nvidia )?gpus? (?:on|in) (?:this|the|my) "
            r"(?:machine|host|node|server|laptop|computer)\b"
        ),
        _cpu_host_named,
    ),
    _Rule(
        ("i have", "i do have", "instead of", "not using", "gpu not", "gpu is not"),
        _rx(
            r"\bi (?:do )?have (?:an? |the |my )?(?:nvidia )?(?:gpu|graphics card)\b|\b(?:runs?|"
            r"running|works?|working) on (?:the )?cpu instead of (?:the )?gpu\b|\bnot using "
            r"(?:my|the) (?:nvidia )?gpu\b|\bgpu (?:is )?not (?:being )?(?:detected|used|"
            r"recogni[sz]ed)\b"
        ),
        _gpu_host_named,
    ),
    # The symptom told in prose: the GPU or CUDA not detected, found, available, used or
    # recognised; no GPU or CUDA device found; the program falling back to the CPU; the GPU's
    # usage at 0%. Whoever writes it expects a GPU on that host. Not a program's own notice that
    # it runs on the CPU where it finds none (JAX's "No GPU/TPU found, falling back to CPU",
    # TensorFlow's "Could not find cuda drivers on your machine"), nor "no GPU needed".
    _Rule(
        (
            "gpu",
            "cuda",
            "cuinit failed",
            "graphics card",
            "video card",
            "nvidia card",
            "back to cpu",
            "back to the cpu",
        ),
        _rx(
            r"\b(?:(?:nvidia )?gpus?|cuda|graphics card|video card|nvidia card)(?: devices?)? "
            r"(?:(?:is|are|was|were) not |isn't |aren't |wasn't |not |never )(?:being |getting )?"
            r"(?:detected|found|available|used|utili[sz]ed|recogni[sz]ed|visible|showing up)\b"
            r"|\bno (?:nvidia |cuda[- ]capable |cuda |compatible )?(?:gpus?|cuda|devices?)"
            r"(?: devices?)? (?:was |were )?(?:found|detected|available)\b"
            r"|^\W{0,4}no (?:nvidia )?gpus?\W{0,4}$"
            r"|\b(?:can't|cannot|can not|doesn't|does not|won't|didn't|isn't able to) (?:detect|"
            r"find|see|use|recogni[sz]e) (?:my |the |any |an? )?(?:nvidia )?(?:gpus?|cuda|graphics "
            r"card)\b|\b(?:falls|fell) back to (?:the )?cpu\b|\b(?:cpu|processor) instead of "
            r"(?:the |my )?(?:nvidia )?gpu\b|\bgpu (?:usage|utili[sz]ation|util|load)\b[^\n%]{0,24}"
            r"(?<![\d.])0(?:\.0{1,2})? ?%"
            # CUDA failing to start, and a GPU said to be unsupported
            r"|\b(?:failed to|could not|couldn't|unable to|cannot|can't) (?:load|initiali[sz]e|"
            r"init|start) (?:the )?(?:cuda|libcuda|gpu)\b|\b(?:cuda|gpu) (?:initiali[sz]ation|"
            r"init) failed\b|\bcuInit failed\b|\b(?:gpu|graphics card) (?:is |was )?not "
            r"supported\b|\bunsupported (?:nvidia )?gpu\b"
        ),
        _gpu_host_named,
    ),
    # A CUDA install said to be missing: "CUDA toolkit not found", "could not find CUDA",
    # "libcuda not found" (not TensorFlow's notice "Could not find cuda drivers on your machine,
    # GPU will not be used", printed on any machine without a GPU).
    _Rule(
        ("cuda", "nvcc"),
        _rx(
            r"\b(?:no|could not find|couldn't find|cannot find|can't find|unable to (?:find|"
            r"locate)) (?:the |a |any )?(?:nvidia )?(?:cuda|libcuda|nvcc)(?! drivers on your "
            r"machine)(?: toolkit| driver| runtime| installation| install| library| compiler)?"
            r"(?: (?:was |is )?(?:found|installed|detected))?\b|\b(?:cuda|libcuda|nvcc)(?: "
            r"toolkit| driver| runtime| installation| install| library| compiler)? (?:was |is )?"
            r"not (?:found|installed)\b"
        ),
        _cuda_home_named,
    ),
    # The NVIDIA driver (or its installer) or an NVIDIA GPU named in prose without a version
    # ("my nvidia driver stopped working", "NVIDIA Installer cannot continue", "a display
    # attached to an NVIDIA GPU"); after the rules above, so a line that already said the
    # machine has a GPU is not named twice. Never the GPU Operator, NGC (NVIDIA GPU Cloud) or
    # the device plugin, nor another vendor's or program's "driver". The driver is also named
    # by its kernel module (and DKMS's build of it), by the tools only its packages install
    # ("nvidia-smi hangs", "nvidia-settings shows nothing"), and as "the GPU driver" on a line
    # about CUDA, which only NVIDIA's driver runs.
    _Rule(
        ("nvidia", "cuda"),
        _rx(
            r"\bnvidia(?:'s)? (?:geforce |graphics |display |gpu |video |proprietary |kernel )?"
            r"drivers?\b|\bnvidia[ -]installer\b|\bnvidia(?:'s)? (?:kernel )?modules?\b|"
            r"\bnvidia[- ]dkms\b|\bdkms\b[^\n]{0,80}\bnvidia\b|\bnvidia-(?:smi|settings|"
            r"persistenced|xconfig|modprobe|"
            r"bug-report)\b|\b(?:gpu|graphics|display|video) drivers?\b(?=[^\n]{0,200}\bcuda\b)|"
            r"\bcuda\b[^\n]{0,200}\b(?:gpu|graphics|display|video) drivers?\b"
        ),
        _nvidia_driver_named,
    ),
    _Rule(
        "nvidia",
        _rx(
            r"\bnvidia(?:'s)? (?:geforce |quadro |rtx |tesla )?(?:gpus?|graphics cards?|video "
            r"cards?|graphics processors?)\b(?! operator| feature| cloud| device plugin)"
        ),
        _nvidia_gpu_named,
    ),
    _Rule("step ", _rx(r"^\s{0,4}Step \d{1,3}/\d{1,3} : RUN\b"), _build_named),
    _Rule("] run ", _rx(r"^\s{0,4}#\d{1,4} \[[^\]\n]{1,80}\] RUN\b"), _build_named),
    _Rule("docker", _rx(r"\bdocker (?:buildx )?build\b"), _build_named),
    _Rule(
        ("docker run", "docker exec", "nvidia-docker", "podman run", "docker compose"),
        _rx(r"\b(?:(?:nvidia-)?docker|podman) (?:run|exec|compose)\b|\bnvidia-docker\b"),
        _container_run_named,
    ),
    _Rule("jetpack", _rx(r"\b(?P<name>jetpack)\b"), _jetson_named),
    # L4T's own tools: only a Jetson has them (nvpmodel, jetson_clocks; jtop and
    # jetson_release are jetson-stats')
    _Rule(
        ("jetson_clocks", "nvpmodel", "jtop", "jetson_release"),
        _rx(r"\b(?P<name>jetson_clocks|nvpmodel|jtop|jetson_release)\b"),
        _jetson_named,
    ),
    # the toolkit's folder as a build is told it (`export CUDA_HOME=...`, `echo $CUDA_PATH`)
    _Rule(("cuda_home", "cuda_path"), _rx(r"\bCUDA_(?:HOME|PATH)\b"), _cuda_home_named),
    _Rule("jetson", _rx(r"\b(?P<name>jetson)\b"), _jetson_named),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule("jax", _rx(r"\b(?P<name>jax(?:lib)?)\b"), _named),
    _Rule(
        ("ctranslate2", "whisper"),
        _rx(r"\b(?P<name>ctranslate2|faster[-_]whisper|whisperx)\b"),
        _named,
    ),
    # a program named in prose ("ollama is using the CPU", "vllm won't start"): what the paste
    # is about, kept as a named word (words.py), never a fact
    _Rule(
        _PROGRAM_NEEDLES,
        _rx(
            r"(?<![\w.-])(?P<name>ollama|vllm|sglang|llama\.cpp|llama[-_]cpp(?:[-_]python)?|comfyui|"
            r"text[-_]generation[-_]inference|text_generation_launcher|automatic1111|a1111|"
            r"stable-diffusion-webui(?:-forge)?|sd-webui-forge|invokeai|fooocus|koboldcpp|"
            r"bitsandbytes|xformers|flash[-_]attn|flash-attention|deepspeed|tensorrt[-_]llm)"
            r"(?![\w-])"
        ),
        _named,
    ),
    _Rule("torch", _rx(r"\b(?P<name>(?:py)?torch)\b"), _named),
    _Rule("tensorflow", _rx(r"\b(?P<name>tensorflow)\b"), _named),
)
