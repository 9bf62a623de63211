"""Framework names: what each framework is called in the matrix, on a host, on the command line
and by the verify script. One table, so the places that translate between them agree."""

from __future__ import annotations

# The frameworks the matrix has rows for (and `build` makes images of), in listing order.
MATRIX = ("pytorch", "tensorflow")
# What a framework is called on a host (FrameworkFacts.name: its import name) -> its matrix
# name; jax is probed and judged but has no matrix rows.
MATRIX_NAME = {"torch": "pytorch", "tensorflow": "tensorflow"}
# Host name -> the name templates/verify_image.py takes.
SCRIPT_NAME = {"torch": "pytorch", "tensorflow": "tensorflow", "jax": "jax"}
# What a user may type for `--framework` -> the matrix name.
ALIASES = {"pytorch": "pytorch", "torch": "pytorch", "tensorflow": "tensorflow", "tf": "tensorflow"}

# Programs people run on GPUs whose minimum compute capability the matrix's [[program]] rows
# may name: the pip distributions the probe looks for (canonical names), and programs a pasted
# log names (ollama is a server binary; the `ollama` pip package is only its client).
GPU_PROGRAMS = (
    "vllm",
    "flash-attn",
    "xformers",
    "bitsandbytes",
    "llama-cpp-python",
    "flashinfer-python",
)
LOGGED_PROGRAMS = ("ollama",)
