"""The last reading of a paste no shape read: the things it names without a version.

A paste of two lines ("import torch" and "print(torch.cuda.is_available())", "Running on a
Jetson Orin", "MIG is enabled", "ollama runs on the CPU", "my nvidia driver stopped working",
`export LD_LIBRARY_PATH=/usr/local/cuda/lib64`) holds no version, GPU name or known line, but it
does say what the host runs: a framework, a program (ollama, vLLM, llama.cpp, ComfyUI), a Jetson
or a Mac, MIG, the NVIDIA driver or an NVIDIA GPU, a CUDA folder the loader is pointed at. Those
words were kept aside by the facts scan
(`Draft.named`, `Draft.ld_library_path`, `Draft.images`) because beside real facts they add
nothing; alone they are all the paste tells, so the report says it read them (their lines) and
what to paste for a judgement (for a Mac or a machine said to have no NVIDIA GPU: that there is
no NVIDIA stack to judge), rather than that it recognised nothing. No fact is invented: the
words stay what they are, and no check judges a version it was not given.
"""

from __future__ import annotations

from gpudoctor.pasted.draft import Draft

NAME = "words named"

# What each word of Draft.named is, as the note says it.
_SAID = {
    "jetson": "a Jetson",
    "apple": "a Mac (no NVIDIA GPU)",
    "amd": "AMD",
    "cpu-only": "a machine without an NVIDIA GPU",
    "gpu-host": "a machine with a GPU",
    "nvidia-driver": "the NVIDIA driver",
    "nvidia-gpu": "an NVIDIA GPU",
    "gpu-node": "a Kubernetes GPU node",
    "gpu-node-said": "a Kubernetes node said to have GPUs but no nvidia.com/gpu",
    "gpu-column-empty": "a listing of the nodes' GPUs in which none has any",
    "mig": "MIG",
    "mig-devices": "MIG devices",
    "mig-lost-at-reboot": "MIG settings lost at reboot",
    "docker-build": "a docker build",
    "container-run": "a container started",
    "cuda": "CUDA",
    "vllm": "vLLM",
    "sglang": "SGLang",
    "comfyui": "ComfyUI",
    "invokeai": "InvokeAI",
    "fooocus": "Fooocus",
    "deepspeed": "DeepSpeed",
    "tensorrt-llm": "TensorRT-LLM",
}
# the words that say the host has no NVIDIA GPU: nothing of an NVIDIA stack to ask for there
_NO_NVIDIA = frozenset({"apple", "cpu-only"})
_MAX_SHOWN = 6
_ASK = (
    "paste `gpudoctor snapshot` (or `nvidia-smi`, and the framework's `python -m torch.utils."
    "collect_env` or `pip list`) from the host for a judgement"
)


def read_words(draft: Draft) -> None:
    """Mark the lines of the words a paste with no other reading names; nothing when it names
    none, so a paste of unrelated text stays "no report recognised"."""
    if draft.sections:
        return
    said: list[str] = []
    for word, line in draft.named:
        text = _SAID.get(word, word)
        if text not in said:
            said.append(text)
        draft.section(NAME)
        draft.ranges.append((NAME, line, line))
    if draft.ld_library_path:
        said.append("the library folders " + ", ".join(draft.ld_library_path[:_MAX_SHOWN]))
        draft.section(NAME)
    if draft.images:
        said.append("the images " + ", ".join(draft.images[:_MAX_SHOWN]))
        draft.section(NAME)
    if not said:
        return
    shown = "; ".join(said[:_MAX_SHOWN]) + (
        f" and {len(said) - _MAX_SHOWN} more" if len(said) > _MAX_SHOWN else ""
    )
    if any(word in _NO_NVIDIA for word, _ in draft.named):
        draft.note(
            f"the paste names {shown} and no NVIDIA GPU, driver or error line: there is no "
            "NVIDIA stack to judge on that host"
        )
    else:
        draft.note(f"the paste names {shown}, without a version, GPU or known line: {_ASK}")
