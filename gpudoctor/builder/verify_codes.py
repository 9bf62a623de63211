"""The codes `gpudoctor build` reports when it verifies an image, one entry per promise of the
matrix row; docs/findings.md documents them beside the check codes (checks/docgen.py)."""

from __future__ import annotations

from gpudoctor.findings import CatalogueEntry, severities

AREA = "image"
AREA_TITLE = "Image verification (`gpudoctor build`)"
_FIX = "Rebuild from the row's index (or fix the wheelhouse) and verify again."


def _E(code: str, title: str, allowed: str, meaning: str) -> CatalogueEntry:
    return CatalogueEntry(code, AREA, title, severities(allowed), meaning, _FIX)


ENTRIES = (
    _E("verify-python", "The image's Python", "ok, error",
       "The Python inside the image has the major.minor version the row names."),
    _E("verify-framework-version", "The framework's version", "ok, error",
       "The framework imports inside the image and its public version is the row's (a local tag "
       "like +cu124 aside)."),
    _E("verify-built-cuda", "The CUDA the framework was built with", "ok, error",
       "The framework reports the row's CUDA major.minor as the one it was built with; a CPU-only "
       "build where the row promises CUDA is an error."),
    _E("verify-built-cudnn", "The cuDNN the framework was built with", "ok, error, n/a",
       "The framework's cuDNN agrees with the row on as many components as both give; n/a when "
       "the row names no cuDNN."),
    _E("verify-arch-list", "The architectures the framework was compiled for", "ok, error, n/a",
       "The architectures torch in the image was compiled for (torch.cuda.get_arch_list(), "
       "or without a GPU the compiled arch flags it reads) equal the row's arch list (often "
       "not read from the wheel: the row's provenance says so); n/a when the row names none or "
       "torch reports none (a CPU-only build)."),
    _E("verify-cuda-once", "Each CUDA library once", "ok, error, n/a",
       "No CUDA library sits in two folders (an nvidia/cuda base's /usr/local/cuda and the "
       "framework's nvidia-* wheels): that wastes gigabytes and which copy loads depends on the "
       "search order; n/a when the report does not say."),
    _E("verify-cuda-available", "CUDA at run time", "ok, error, n/a",
       "With a GPU (`build` verifies with --gpus when the host has one and the NVIDIA runtime), "
       "the framework sees it; n/a when verify ran without a GPU."),
    _E("verify-kernel", "A small GPU kernel", "ok, error",
       "With a GPU, one small computation runs and gives the expected sum."),
    _E("verify-labels", "The image's labels", "ok, error",
       "The io.gpudoctor.* and OCI labels carry the resolved row."),
)  # fmt: skip

CATALOGUE = {e.code: e for e in ENTRIES}
