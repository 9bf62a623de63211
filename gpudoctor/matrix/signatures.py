"""The signature catalogue (matrices/signatures.toml): the log and error lines people paste,
what each means and what to do, as data. Read with the matrix's own row reader, so a broken
entry is named by file, table, row and key exactly like a matrix row, and `gpudoctor matrix
validate matrices/signatures.toml` reports every problem at once.

Loaded only where there are pasted or log lines to judge (pasted reports, `check_report_errors`),
never on the live `check` start-up path.

Each pattern is checked here to be free of nested or alternated repeats
(matrix/regex_safety.py): patterns run over every line of logs megabytes long. Named groups of a
pattern are the numbers the line states; `cause` and `fix` are templates over them
(`{sm}`, `{driver}`), so a finding words what the report says, never a canned example.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor.matrix import cache
from gpudoctor.matrix import fields as f
from gpudoctor.matrix import kinds as k
from gpudoctor.matrix.cuda_errors import cuda_error_values
from gpudoctor.matrix.fields import Problems, RowReader
from gpudoctor.matrix.model import Provenance
from gpudoctor.matrix.package_repos import package_repo_values
from gpudoctor.matrix.reader import (
    RowRule,
    load_cached,
    no_repeats,
    raise_problems,
    read_document,
    toml_loads,
)
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.matrix.schema import array, flag, table, text
from gpudoctor.resources import matrices_dir

LAYERS = (
    "driver",
    "cuda",
    "framework",
    "library",
    "container",
    "kubernetes",
    "multigpu",
    "mig",
    "vgpu",
    "platform",
    "rocm",
)
# What a named group of a pattern states, read into the report's facts (pasted/errors.py).
# Other group names only fill the cause and fix templates.
FACT_GROUPS = {
    "driver": "the driver version the line states",
    "module": "the loaded kernel module's version",
    "library": "the user-space driver library's version",
    "cuda_int": "cudaDriverGetVersion's integer (1000 * major + 10 * minor)",
    "driver_cuda": "the newest CUDA the driver supports, MAJOR.MINOR",
    "gpu": "a GPU's name",
    "sm": "a compute capability as sm_XY digits",
    "cc": "a compute capability, MAJOR.MINOR",
    "nccl": "the NCCL version",
    "nvcc_cuda": "the CUDA toolkit (nvcc) a build found, MAJOR.MINOR",
    "torch_cuda": "the CUDA the installed torch was built with, MAJOR.MINOR",
    "xid": "an Xid number",
}
# Values derived from the groups, for the templates: cuda_int -> "12.8", sm -> "8.0".
DERIVED = {
    "driver_cuda_from_int": "cuda_int",
    "cc_from_sm": "sm",
    # a CUDA error code, looked up in matrices/cuda_errors.toml (matrix/cuda_errors.py)
    "cuda_error_name": "cuda_error",
    "cuda_error_number": "cuda_error",
    "cuda_error_meaning": "cuda_error",
    "cuda_error_fix": "cuda_error",
    # the repository that ships an NVIDIA package, and how to configure it (matrix/package_repos.py)
    "package_repo": "package",
    "package_repo_fix": "package",
}
INSTALLS = ("torch", "tensorflow")
SOURCE_KINDS = ("vendor", "threads")
_CODE = k.Kind(
    'a kebab-case code like "driver-too-old"',
    lambda v: isinstance(v, str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", v) is not None,
)
_LAYER = k.Kind(" or ".join(f'"{x}"' for x in LAYERS), lambda v: v in LAYERS)
_INSTALL = k.Kind(" or ".join(f'"{x}"' for x in INSTALLS), lambda v: v in INSTALLS)
_SOURCE_KIND = k.Kind('"vendor" or "threads"', lambda v: v in SOURCE_KINDS)
_KEYWORD = k.Kind(  # searched for within one line (pasted/scan.py)
    "a lower-case literal of 3 or more characters, on one line",
    lambda v: isinstance(v, str) and len(v) >= 3 and v == v.lower() and "\n" not in v,
)
_HINT = (
    "fix the file (format: docs/matrix-format.md#signatures) and re-run `gpudoctor matrix "
    "validate FILE`"
)
SEVERITIES = ("error", "warn", "info")
_SEVERITY = k.Kind('"error", "warn" or "info"', lambda v: v in SEVERITIES)


@dataclass(frozen=True, eq=False, repr=False)
class Signature(Provenance):
    code: str = field(
        metadata=text(_CODE, "unique: the finding's subject (`report-error` findings carry it)")
    )
    layer: str = field(metadata=text(_LAYER, "the layer the line is about"))
    pattern: str = field(
        metadata=text(
            k.TEXT,
            "a regular expression searched in one line (case-insensitive), or in the line "
            "joined with the next for a message printed over two lines; named groups are the "
            "numbers the line states",
        )
    )
    keywords: tuple[str, ...] = field(  # lower-case literals; every matching line holds one
        metadata=array(
            _KEYWORD,
            "literals, one of which every matching line holds (the paste is searched for these "
            "first)",
        )
    )
    examples: tuple[str, ...] = field(  # lines as users paste them (a test runs the pattern)
        metadata=array(
            k.TEXT,
            "lines as users paste them; the pattern must find each, and each must hold a keyword",
        )
    )
    cause: str = field(  # template over the named groups
        metadata=text(
            k.TEXT,
            "template over the pattern's named groups (`{sm}`, `{driver}`), never a canned example",
        )
    )
    fix: str = field(  # template; {install} is the install command the compatibility model builds
        metadata=text(k.TEXT, "template, as `cause`")
    )
    source_kind: str = field(  # "threads": two public threads settle the cause (sources)
        default="vendor",
        metadata=text(
            _SOURCE_KIND,
            '`"vendor"`: `source` is the vendor\'s own text; `"threads"`: `source` and '
            "`sources` name two independent public threads that settle the cause",
            optional=True,
            absent="vendor",
        ),
    )
    severity: str = field(  # "warn": degraded; "info": a known line that is harmless
        default="error",
        metadata=text(
            _SEVERITY,
            '`"warn"`: the line says something runs slower or degraded; `"info"`: a line '
            "programs print where nothing is wrong (its cause says why it is harmless)",
            optional=True,
            absent="error",
        ),
    )
    needs: tuple[str, ...] = field(  # the facts that judge it (words, shown when unknown)
        default=(),
        metadata=array(
            k.TEXT, "the facts that judge it (words, shown to the reader)", optional=True
        ),
    )
    install: str | None = field(  # "torch" / "tensorflow": the fix installs that framework
        default=None,
        metadata=text(
            _INSTALL,
            "the fix installs it; the fix must place `{install}`, which the compatibility "
            "model fills with the build for the host",
            optional=True,
        ),
    )
    predicted_by: tuple[str, ...] = field(  # finding codes that explain it from the facts
        default=(),
        metadata=array(
            _CODE,
            "finding codes that explain the line from the host's facts "
            "(`checks/pasted_report.py` links them)",
            optional=True,
        ),
    )
    explains: tuple[str, ...] = field(  # what the line makes specific: findings, other lines
        default=(),
        metadata=array(
            _CODE,
            "finding codes, or codes of other signatures, whose verdict the line replaces with a "
            "more specific cause: that finding (or line) becomes info and the line's fix applies "
            "(`checks/pasted_report.py`)",
            optional=True,
        ),
    )
    symptom: bool = field(  # the line says that something failed, not why
        default=False,
        metadata=flag(
            "`true`: the line says that something failed (a pod that crash-loops, a container "
            "restarted) but not why: it is an error only when no other error in the report "
            "(nor a Kubernetes line's warning) names a cause; next to one it becomes info, "
            "that cause's symptom "
            "(`checks/pasted_report.py`)",
            absent=False,
        ),
    )
    nvml_status: str | None = field(  # NVML's state when the line is printed
        default=None,
        metadata=text(
            k.TEXT,
            "NVML's state when the line is printed (`driver_not_loaded`, "
            "`lib_rm_version_mismatch`)",
            optional=True,
        ),
    )

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

    def __getstate__(self) -> dict[str, object]:
        # Pickled (matrix/cache.py) without the compiled pattern: unpickling compiles it again,
        # and a paste needs the few whose keywords it holds, not all of them.
        return {k: v for k, v in self.__dict__.items() if k != "compiled"}

    def values(self, line: str) -> dict[str, str]:
        """The named groups the line states, with the derived values (see DERIVED)."""
        found = self.compiled.search(line)
        if found is None:
            return {}
        out = {k: v for k, v in found.groupdict().items() if v}
        if "cuda_int" in out and out["cuda_int"].isdecimal():
            value = int(out["cuda_int"])  # cudaDriverGetVersion: 1000 * major + 10 * minor
            out["driver_cuda_from_int"] = f"{value // 1000}.{value % 1000 // 10}"
        if "sm" in out and out["sm"].isdecimal() and len(out["sm"]) >= 2:
            out["cc_from_sm"] = f"{out['sm'][:-1]}.{out['sm'][-1]}"
        if "cuda_error" in out:
            out.update(cuda_error_values(out["cuda_error"]))
        if "package" in out:
            out.update(package_repo_values(out["package"]))
        return out


@dataclass(frozen=True)
class SignatureCatalogue:
    path: Path
    schema_version: int
    signatures: tuple[Signature, ...] = field(
        metadata=table("signature", Signature, "code", "one line people paste")
    )

    @functools.cached_property
    def by_code(self) -> dict[str, Signature]:
        return {s.code: s for s in self.signatures}


def signatures_path() -> Path:
    return matrices_dir() / "signatures.toml"


def load_signatures(path: Path | None = None) -> SignatureCatalogue:
    """The catalogue at `path` (the shipped one when None); MatrixError names every problem."""
    path = path or signatures_path()
    return load_cached(path, "signature file", _HINT, _parse_once)


def _parse_once(text: str, path: Path) -> SignatureCatalogue:
    """The catalogue validated by an earlier run (matrix/cache.py: same content, same code), or
    parsed and validated now and kept for the next run."""
    content = text.encode("utf-8")
    cached = cache.load_model(path, content, SignatureCatalogue, "signatures")
    if cached is not None:
        return cached
    catalogue = parse_signatures(text, path)
    cache.store_model(path, content, catalogue, "signatures")
    return catalogue


def parse_signatures(text: str, path: Path) -> SignatureCatalogue:
    problems = Problems(str(path))
    read = read_document(SignatureCatalogue, toml_loads(text, path, _HINT), problems, _RULES)
    catalogue = SignatureCatalogue(path, **read)
    no_repeats(problems, "signature code", [r.code for r in catalogue.signatures])
    raise_problems(problems, _HINT, "the signature catalogue")
    return catalogue


def _signature(r: RowReader, row: Signature) -> None:
    """A pattern free of catastrophic backtracking, then the rules between keys."""
    if not row.pattern:
        return

    why = problem(row.pattern)
    if why:
        r.fail(f"key 'pattern': {why}")
    elif r.ok:
        _cross_check(r, row, set(re.compile(row.pattern).groupindex))


_RULES: dict[type, RowRule] = {Signature: _signature}


def _cross_check(r: RowReader, row: Signature, groups: set[str]) -> None:
    """The rules between keys: templates name groups, sources, examples and keywords agree."""
    allowed = groups | {d for d, g in DERIVED.items() if g in groups}
    for key in ("cause", "fix"):
        for name in _placeholders(getattr(row, key)):
            if name == "install" and key == "fix" and row.install:
                continue
            if name not in allowed:
                r.fail(f"key '{key}': {{{name}}} is not a named group of the pattern")
    if row.install and "{install}" not in row.fix:
        r.fail("key 'fix': an entry with 'install' must place {install} in its fix")
    if row.source_kind == "threads" and len({row.source, *row.sources}) < 2:
        r.fail("source_kind \"threads\" needs two independent threads: 'source' and 'sources'")
    for example in row.examples:
        if not row.compiled.search(example):
            r.fail(f"key 'examples': the pattern does not match {f.describe(example)}")
        elif not any(k in example.lower() for k in row.keywords):
            r.fail(f"key 'keywords': none is in the example {f.describe(example)}")


def _placeholders(template: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return ["(an unbalanced brace)"]


def render(template: str, values: dict[str, str]) -> str:
    """A cause or fix with the line's values; a group the line left empty reads "?"."""

    class _Missing(dict[str, str]):
        def __missing__(self, key: str) -> str:
            return "?"

    return template.format_map(_Missing(values))


def match_signature(line: str, catalogue: SignatureCatalogue | None = None) -> Signature | None:
    """The first signature (in catalogue order) that names this line; None when none does."""
    catalogue = catalogue or load_signatures()
    lower = line.lower()
    for signature in catalogue.signatures:
        if any(k in lower for k in signature.keywords) and signature.compiled.search(line):
            return signature
    return None
