"""The CUDA error codes (matrices/cuda_errors.toml, generated from the toolkit's headers by
scripts/gen_cuda_errors.py): what a "CUDA error: ..." line of a paste means, in NVIDIA's own
words, and where to look (the part of the system it points at). Read by the one data-file
reader, so a broken row is named by file, table, row and key like a matrix row.

`describe` turns what follows a "CUDA error" in a line (an enumerator's name, the runtime's
message, or a bare number) into the code it is. Loaded only for pastes that hold such a line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor.frozen import Frozen
from gpudoctor.matrix import kinds as k
from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.model import Provenance
from gpudoctor.matrix.reader import (
    load_cached,
    no_repeats,
    raise_problems,
    read_document,
    toml_loads,
)
from gpudoctor.matrix.schema import integer, table, text
from gpudoctor.resources import matrices_dir

APIS = ("runtime", "driver")
PARTS = ("driver", "device", "busy", "memory", "mps", "unknown", "program")
_API = k.Kind('"runtime" or "driver"', lambda v: v in APIS)
_CLASS = k.Kind(" or ".join(f'"{c}"' for c in PARTS), lambda v: v in PARTS)
_NAME = k.Kind(
    "an enumerator like cudaErrorNoDevice or CUDA_ERROR_NO_DEVICE",
    lambda v: isinstance(v, str) and re.fullmatch(r"cudaError\w+|CUDA_ERROR_\w+", v) is not None,
)
_HINT = (
    "regenerate it (`python scripts/gen_cuda_errors.py > matrices/cuda_errors.toml`) and re-run "
    "`gpudoctor matrix validate FILE`"
)


@dataclass(frozen=True, eq=False, repr=False)
class ErrorPart(Frozen):
    """A part of the system codes point at (the driver, the GPU, the program): its fix."""

    name: str = field(metadata=text(_CLASS, "the part's name"))
    fix: str = field(metadata=text(k.TEXT, "where to look, shown as the finding's fix"))


@dataclass(frozen=True, eq=False, repr=False)
class CudaError(Provenance):
    api: str = field(metadata=text(_API, "cudaError_t (runtime) or CUresult (driver)"))
    name: str = field(metadata=text(_NAME, "the enumerator", example="cudaErrorNoDevice"))
    number: int = field(metadata=integer(k.POSITIVE_INT, "its value", example="100"))
    meaning: str = field(metadata=text(k.TEXT, "the header's doc comment, first sentences"))
    part: str = field(metadata=text(_CLASS, "a `[[part]]` row's name: what the code points at"))
    text: str = field(
        default="",
        metadata=text(
            k.TEXT, "what cudaGetErrorString returns (runtime codes)", optional=True, absent=""
        ),
    )


@dataclass(frozen=True)
class CudaErrorCatalogue:
    path: Path
    schema_version: int
    parts: tuple[ErrorPart, ...] = field(
        metadata=table("part", ErrorPart, "name", "the parts of the system codes point at")
    )
    errors: tuple[CudaError, ...] = field(
        metadata=table("error", CudaError, "name", "the error codes")
    )

    @functools.cached_property
    def by_name(self) -> dict[str, CudaError]:
        return {e.name.lower(): e for e in self.errors}

    @functools.cached_property
    def by_text(self) -> list[tuple[str, CudaError]]:
        """Runtime messages, longest first: "unspecified launch failure in prior launch" is
        tried before "unspecified launch failure"."""
        texts = [(e.text.lower().rstrip("."), e) for e in self.errors if e.text]
        return sorted(texts, key=lambda t: -len(t[0]))

    @functools.cached_property
    def runtime_by_number(self) -> dict[int, CudaError]:
        return {e.number: e for e in self.errors if e.api == "runtime"}

    @functools.cached_property
    def driver_by_number(self) -> dict[int, CudaError]:
        return {e.number: e for e in self.errors if e.api == "driver"}

    @functools.cached_property
    def fixes(self) -> dict[str, str]:
        return {p.name: p.fix for p in self.parts}


_ENUM = re.compile(r"\b(cudaError[A-Za-z]{2,60}|CUDA_ERROR_[A-Z_]{2,60})\b", re.IGNORECASE)
# "CUDA error: ", "cuda runtime error (59) : ", "CUDA failure 100: ", "GPUassert: ": the message
# follows the label, an optional number and a colon.
_LABELLED = re.compile(
    r"(?:cuda (?:runtime |driver )?(?:error|failure)|gpuassert)\s{0,2}(?:code\s{0,2}[=:]?\s{0,2})?"
    r"\(?\s{0,2}(?P<n>\d{1,5})?\s{0,2}\)?\s{0,2}:\s{0,2}(?P<text>[^\n]{1,200})",
    re.IGNORECASE,
)
# TensorRT's "Error Code 1: Cuda Runtime (out of memory)": the number is TensorRT's own code,
# the CUDA message is in the parentheses.
_WRAPPED = re.compile(r"\bcuda (?:runtime|driver) \((?P<text>[^)\n]{1,200})\)", re.IGNORECASE)
_PARENTHESIZED = re.compile(r"\((\d{1,4})\)\s{0,4}$")
# A driver API call, or ollama's "cuda driver library ..." (its wrapper of libcuda's calls):
# the number after it is a CUresult.
_DRIVER_CALL = re.compile(
    r"\bcu(?:Init|Ctx\w{0,30}|Mem\w{0,30}|Module\w{0,30}|Launch\w{0,30}|Device\w{0,30})\b"
    r"|\bcuda driver library\b",
    re.IGNORECASE,
)
# "err" as a word too: ollama's verbose "cudaSetDevice err: 35"; a call that "returned 100"
# (the CUDA samples' "cudaGetDeviceCount returned 100", a driver call's "cuInit(0) returned 100")
_NUMBER = re.compile(
    r"(?:error|\berr\b|code|failure|status|device context|\breturned)\s{0,2}[=:]?\s{0,2}"
    r"\(?(\d{1,5})\b",
    re.IGNORECASE,
)
# old torch's "THCudaCheck FAIL file=... line=50 error=30 : unknown error": the number is the
# CUDA release's it was built with (older releases numbered many codes differently:
# cudaErrorUnknown was 30, cudaErrorNoDevice 38), so only the text says which code it is
_THC = re.compile(
    r"\bTHCudaCheck FAIL\b[^\n]{0,300}?\berror=\d{1,5}\s{0,2}:\s{0,2}(?P<text>[^\n]{1,200})",
    re.IGNORECASE,
)
# glog's CHECK_EQ on a CUDA call: "Check failed: cuInit(0) == CUDA_SUCCESS (999 vs. 0)" states the
# code as a number, a CUresult beside CUDA_SUCCESS and a cudaError_t beside cudaSuccess.
_CHECKED = re.compile(
    r"==\s{0,2}(?P<success>CUDA_SUCCESS|cudaSuccess)\s{0,2}\((?P<n>\d{1,5}) vs\.? 0\)",
)
# numba's CudaAPIError: "[999] Call to cuInit results in CUDA_ERROR_UNKNOWN" (a CUresult)
_BRACKETED = re.compile(r"\[(?P<n>\d{1,5})\]\s{0,2}call to cu[A-Z]", re.IGNORECASE)


def _checked(said: str, catalogue: CudaErrorCatalogue) -> CudaError | None:
    """The code of a glog check ("== CUDA_SUCCESS (999 vs. 0)") or of numba's "[999] Call to
    cuInit": a CUresult beside CUDA_SUCCESS and after numba's driver calls, else a cudaError_t."""
    checked = _CHECKED.search(said)
    if checked:
        driver = checked.group("success") == "CUDA_SUCCESS"
        by_number = catalogue.driver_by_number if driver else catalogue.runtime_by_number
        return by_number.get(int(checked.group("n")))
    bracketed = _BRACKETED.search(said)
    if bracketed:
        return catalogue.driver_by_number.get(int(bracketed.group("n")))
    return None


def describe(said: str, catalogue: CudaErrorCatalogue | None = None) -> CudaError | None:
    """The code a line's "CUDA error ..." text names: by enumerator, by a glog check's or numba's
    number, by the runtime's message after a "CUDA error:" label (or after old torch's
    THCudaCheck, whose number is an older release's), by an explicit number (this toolkit's
    numbering; a driver API call such as cuInit numbers CUresult), then by a message anywhere in
    the line."""
    catalogue = catalogue or load_cuda_errors()
    enum = _ENUM.search(said)
    if enum and enum.group(1).lower() in catalogue.by_name:
        return catalogue.by_name[enum.group(1).lower()]
    checked = _checked(said, catalogue)
    if checked is not None:
        return checked
    labelled = _LABELLED.search(said)
    thc = _THC.search(said)  # its number is an older release's: the text only
    message_at = thc or labelled
    if message_at:
        message = message_at.group("text").strip().lower()
        for known, error in catalogue.by_text:
            if message.startswith(known):
                return error
    wrapped = _WRAPPED.search(said)
    if wrapped:
        message = wrapped.group("text").strip().lower()
        return next((error for known, error in catalogue.by_text if message == known), None)
    number = labelled.group("n") if labelled and labelled.group("n") else None
    if number is None and thc is None:
        found = _NUMBER.search(said) or _PARENTHESIZED.search(said)
        number = found.group(1) if found else None
    if number is not None:
        table = catalogue.driver_by_number if _DRIVER_CALL.search(said) else None
        return (table or catalogue.runtime_by_number).get(int(number))
    lower = said.lower()
    return next((error for known, error in catalogue.by_text if known in lower), None)


def cuda_error_values(said: str) -> dict[str, str]:
    """The cause and fix values of a signature's `cuda_error` group (matrix/signatures.py)."""
    catalogue = load_cuda_errors()
    error = describe(said, catalogue)
    if error is None:
        return {
            "cuda_error_name": "a CUDA error",
            "cuda_error_number": "no code the CUDA headers list",
            "cuda_error_meaning": f"the program's own words ('{said[:120]}')",
            "cuda_error_fix": catalogue.fixes["program"],
        }
    return {
        "cuda_error_name": error.name,
        "cuda_error_number": str(error.number),
        "cuda_error_meaning": error.meaning.rstrip("."),
        "cuda_error_fix": catalogue.fixes[error.part],
    }


def cuda_errors_path() -> Path:
    return matrices_dir() / "cuda_errors.toml"


def load_cuda_errors(path: Path | None = None) -> CudaErrorCatalogue:
    """The catalogue at `path` (the shipped one when None); MatrixError names every problem."""
    path = path or cuda_errors_path()
    return load_cached(path, "CUDA error catalogue", _HINT, parse_cuda_errors)


def parse_cuda_errors(text: str, path: Path) -> CudaErrorCatalogue:
    problems = Problems(str(path))
    read = read_document(CudaErrorCatalogue, toml_loads(text, path, _HINT), problems, {})
    catalogue = CudaErrorCatalogue(path, **read)
    no_repeats(problems, "error", [e.name for e in catalogue.errors])
    parts = {p.name for p in catalogue.parts}
    for index, error in enumerate(catalogue.errors):
        if error.part not in parts:
            where = f'[[error]] row {index + 1} (name "{error.name}")'
            problems.add(where, f"key 'part': '{error.part}' is not a [[part]] row's name")
    raise_problems(problems, _HINT, "the CUDA error catalogue")
    return catalogue
