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
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.errors import MatrixError
from gpudoctor.frozen import Frozen
from gpudoctor.matrix import fields as f
from gpudoctor.matrix import load
from gpudoctor.matrix.fields import COMMON_KEYS, Problems, RowReader, row_label
from gpudoctor.matrix.load import raise_problems, toml_loads
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.resources import matrices_dir

SUPPORTED_SCHEMA_VERSION = 1
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
    "xid": "an Xid number",
}
# Values derived from the groups, for the templates: cuda_int -> "12.8", sm -> "8.0".
DERIVED = {"driver_cuda_from_int": "cuda_int", "cc_from_sm": "sm"}
INSTALLS = ("torch", "tensorflow")
SOURCE_KINDS = ("vendor", "threads")
_CODE = f.Kind(
    'a kebab-case code like "driver-too-old"',
    lambda v: isinstance(v, str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", v) is not None,
)
_LAYER = f.Kind(" or ".join(f'"{x}"' for x in LAYERS), lambda v: v in LAYERS)
_INSTALL = f.Kind(" or ".join(f'"{x}"' for x in INSTALLS), lambda v: v in INSTALLS)
_SOURCE_KIND = f.Kind('"vendor" or "threads"', lambda v: v in SOURCE_KINDS)
_KEYWORD = f.Kind(
    "a lower-case literal of 3 or more characters",
    lambda v: isinstance(v, str) and len(v) >= 3 and v == v.lower(),
)
_HINT = (
    "fix the file (format: docs/matrix-format.md#signatures) and re-run `gpudoctor matrix "
    "validate FILE`"
)
_KEYS = (
    "code layer pattern keywords examples needs cause fix install predicted_by nvml_status "
    "source_kind severity"
)
SEVERITIES = ("error", "warn")
_SEVERITY = f.Kind('"error" or "warn"', lambda v: v in SEVERITIES)


@dataclass(frozen=True, eq=False, repr=False)
class Signature(Frozen):
    code: str
    layer: str
    pattern: str
    keywords: tuple[str, ...]  # lower-case literals; every matching line holds one
    examples: tuple[str, ...]  # lines as users paste them (a test runs the pattern on them)
    cause: str  # template over the named groups
    fix: str  # template; {install} is the install command the compatibility model builds
    source: str
    source_kind: str = "vendor"  # "threads": two public threads settle the cause (sources)
    severity: str = "error"  # "warn": the line says something runs slower or degraded
    needs: tuple[str, ...] = ()  # the facts that judge it (words, shown when they are unknown)
    install: str | None = None  # "torch" / "tensorflow": the fix installs that framework
    predicted_by: tuple[str, ...] = ()  # finding codes that explain it from the facts
    nvml_status: str | None = None  # NVML's state when the line is printed
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

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
        return out


@dataclass(frozen=True)
class SignatureCatalogue:
    path: Path
    signatures: tuple[Signature, ...]

    @functools.cached_property
    def by_code(self) -> dict[str, Signature]:
        return {s.code: s for s in self.signatures}


def signatures_path() -> Path:
    return matrices_dir() / "signatures.toml"


@functools.lru_cache(maxsize=4)
def load_signatures(path: Path | None = None) -> SignatureCatalogue:
    """The catalogue at `path` (the shipped one when None); MatrixError names every problem."""
    path = path or signatures_path()
    try:
        if path.stat().st_size > load.MAX_MATRIX_BYTES:
            raise MatrixError(
                f"signature file {path} is larger than the {load.MAX_MATRIX_BYTES >> 20} MiB a "
                "catalogue may be",
                hint=_HINT,
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise MatrixError(f"cannot read signature file {path}: {reason}", hint=_HINT) from None
    return parse_signatures(text, path)


def parse_signatures(text: str, path: Path) -> SignatureCatalogue:
    doc = toml_loads(text, path)
    problems = Problems(str(path))
    version = doc.get("schema_version")
    if version != SUPPORTED_SCHEMA_VERSION:
        found = f.describe(version)
        problems.add("", f"'schema_version': expected {SUPPORTED_SCHEMA_VERSION}, found {found}")
    for key in doc:
        if key not in ("schema_version", "signature"):
            problems.add("", f"unknown top-level table '{key}' (valid: signature)")
    raw = doc.get("signature", [])
    rows: list[Signature] = []
    if not isinstance(raw, list):
        problems.add(
            "", f"'signature': expected an array of tables [[signature]], found {f.describe(raw)}"
        )
        raw = []
    for index, item in enumerate(raw):
        where = row_label("signature", index, item, "code")
        if not isinstance(item, dict):
            problems.add(where, f"expected a table, found {f.describe(item)}")
            continue
        row = _signature(problems, where, item)
        if row is not None:
            rows.append(row)
    codes = [r.code for r in rows]
    for code in sorted({c for c in codes if codes.count(c) > 1}):
        problems.add("", f"signature code '{code}' listed twice")
    raise_problems(problems, _HINT, "the signature catalogue")
    return SignatureCatalogue(path, tuple(rows))


def _signature(problems: Problems, where: str, raw: dict[str, object]) -> Signature | None:
    r = RowReader(problems, where, raw, (*_KEYS.split(), *COMMON_KEYS))
    pattern = r.get_str("pattern", f.TEXT)
    groups: set[str] = set()
    if pattern:
        why = problem(pattern)
        if why:
            r.fail(f"key 'pattern': {why}")
        else:
            groups = set(re.compile(pattern).groupindex)
    row = Signature(
        code=r.get_str("code", _CODE),
        layer=r.get_str("layer", _LAYER),
        pattern=pattern,
        keywords=r.get_list("keywords", _KEYWORD),
        examples=r.get_list("examples", f.TEXT),
        cause=r.get_str("cause", f.TEXT),
        fix=r.get_str("fix", f.TEXT),
        source_kind=r.get("source_kind", _SOURCE_KIND, required=False) or "vendor",
        severity=r.get("severity", _SEVERITY, required=False) or "error",
        needs=r.get_list("needs", f.TEXT, required=False),
        install=r.get("install", _INSTALL, required=False),
        predicted_by=r.get_list("predicted_by", _CODE, required=False),
        nvml_status=r.get("nvml_status", f.TEXT, required=False),
        **r.common(),
    )
    if not r.ok:
        return None
    _cross_check(r, row, groups)
    return row if r.ok else None


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
