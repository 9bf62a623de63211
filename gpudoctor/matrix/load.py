"""Load a compatibility matrix TOML file into the typed model, validating every key.

Errors raise MatrixError naming the file, the table, the row (counted from 1, with its version)
and the key, with what was expected and what was found; all problems of a file are reported
together. Loads are cached per resolved path, size and modification time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar

from gpudoctor import __version__, tomlread
from gpudoctor.errors import MatrixError
from gpudoctor.matrix import cache, load_rocm
from gpudoctor.matrix import fields as f
from gpudoctor.matrix.fields import COMMON_KEYS, Problems, RowReader, row_label
from gpudoctor.matrix.load_rocm import TABLES as ROCM_TABLES
from gpudoctor.matrix.model import (
    Architecture,
    BaseImage,
    CudaMajor,
    CudaRelease,
    Distro,
    DriverBranch,
    ImagePlatform,
    Matrix,
    MigGpu,
    NcclRelease,
    PlatformWheel,
    ProgramMinimum,
    PytorchRelease,
    PytorchVariant,
    TensorflowRelease,
)
from gpudoctor.matrix.validate import cross_check
from gpudoctor.resources import default_matrix_path

SUPPORTED_SCHEMA_VERSION = 1
# table name -> the key that identifies a row in messages
TABLES = {
    "cuda": "version",
    "cuda_major": "major",
    "architecture": "compute_capability",
    "pytorch": "version",
    "tensorflow": "version",
    "base_image": "cuda",
    "mig_gpu": "name",
    "distro": "name",
    "driver_branch": "branch",
    "wheel": "version",
    "image_platform": "platform",
    "program": "name",
    "nccl": "versions",
    **ROCM_TABLES,
}
_MAX_SHOWN = 25
# The shipped matrix is under 100 KiB; a user's extended one stays far below this. The cap keeps
# a wrong or hostile file from costing seconds to parse before anything is said about it.
MAX_MATRIX_BYTES = 4 << 20
_HINT = "fix the file (format: docs/matrix-format.md) and re-run `gpudoctor matrix validate FILE`"

T = TypeVar("T")


def load_matrix(path: Path | None = None) -> Matrix:
    """The matrix at `path`, or the shipped matrices/compat.toml when None."""
    if path is None:
        try:
            path = default_matrix_path()
        except FileNotFoundError as exc:
            raise MatrixError(str(exc), hint="reinstall gpudoctor") from None
    try:
        resolved = path.expanduser().resolve()
        stat = resolved.stat()
    except OSError as exc:
        raise MatrixError(
            f"cannot read matrix file {path}: {exc.strerror or exc}",
            hint="check the path of the matrix file (without one the shipped matrix is used)",
        ) from None
    if not S_ISREG(stat.st_mode):  # a FIFO or device would block or never end
        raise MatrixError(f"cannot read matrix file {path}: not a regular file", hint=_HINT)
    if stat.st_size > MAX_MATRIX_BYTES:
        raise MatrixError(
            f"matrix file {path} is {stat.st_size >> 20} MiB, larger than the "
            f"{MAX_MATRIX_BYTES >> 20} MiB a matrix may be",
            hint="check that --matrix names a compatibility matrix (matrices/compat.toml is "
            "under 100 KiB)",
        )
    return _load_cached(resolved, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load_cached(path: Path, mtime_ns: int, size: int) -> Matrix:
    del mtime_ns, size  # part of the cache key only: an edited file is read again

    try:
        content = path.read_bytes()
        cached = cache.load(path, content)  # validated before, same content and code
        if cached is not None:
            return cached
        text = content.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise MatrixError(f"cannot read matrix file {path}: {reason}", hint=_HINT) from None
    matrix = parse_matrix(text, path)
    cache.store(path, content, matrix)
    return matrix


def parse_matrix(text: str, path: Path) -> Matrix:
    """Parse and validate matrix TOML text; `path` is what messages name (no I/O here)."""
    doc = toml_loads(text, path)
    problems = Problems(str(path))
    schema = _schema_version(doc, problems)
    for key in doc:
        if key != "schema_version" and key not in TABLES:
            problems.add("", f"unknown top-level table '{key}' (valid: {', '.join(TABLES)})")
    matrix = Matrix(
        path=path,
        schema_version=schema,
        cuda=_table(doc, "cuda", problems, _cuda),
        cuda_majors=_table(doc, "cuda_major", problems, _cuda_major),
        architectures=_table(doc, "architecture", problems, _architecture),
        pytorch=_table(doc, "pytorch", problems, _pytorch),
        tensorflow=_table(doc, "tensorflow", problems, _tensorflow),
        base_images=_table(doc, "base_image", problems, _base_image),
        mig_gpus=_table(doc, "mig_gpu", problems, _mig_gpu),
        distros=_table(doc, "distro", problems, _distro),
        driver_branches=_table(doc, "driver_branch", problems, _driver_branch),
        wheels=_table(doc, "wheel", problems, _wheel),
        image_platforms=_table(doc, "image_platform", problems, _image_platform),
        programs=_table(doc, "program", problems, _program),
        nccl=_table(doc, "nccl", problems, _nccl),
        rocm=_table(doc, "rocm", problems, load_rocm.rocm),
        amd_gpus=_table(doc, "amd_gpu", problems, load_rocm.amd_gpu),
        pytorch_rocm=_table(doc, "pytorch_rocm", problems, load_rocm.pytorch_rocm),
    )
    if not problems.lines:  # cross-row rules only make sense on well-formed rows
        cross_check(matrix, problems)
    raise_problems(problems)
    return matrix


def toml_loads(text: str, path: Path) -> dict[str, object]:
    """TOML text as a table; MatrixError naming the file for anything that is not TOML (the
    matrix and the signature catalogue share this reader)."""
    try:
        return tomlread.loads(text)
    except tomlread.TOMLDecodeError as exc:  # its message ends "(at line L, column C)"
        raise MatrixError(f"{path}: not valid TOML: {exc}", hint=_HINT) from None
    except RecursionError:
        raise MatrixError(f"{path}: nested too deeply to be a matrix", hint=_HINT) from None
    except ValueError as exc:  # tomllib: an integer past Python's 4300-digit conversion limit
        raise MatrixError(f"{path}: not a valid matrix: {exc}", hint=_HINT) from None


def raise_problems(problems: Problems, hint: str = _HINT, what: str = "the matrix") -> None:
    lines = problems.lines
    if not lines:
        return
    if len(lines) == 1:
        raise MatrixError(lines[0], hint=hint)
    shown = lines[:_MAX_SHOWN]
    more = [f"... and {len(lines) - _MAX_SHOWN} more"] if len(lines) > _MAX_SHOWN else []
    body = "\n  ".join([*shown, *more])
    raise MatrixError(f"{len(lines)} problems in {what}:\n  {body}", hint=hint)


def _schema_version(doc: dict[str, object], problems: Problems) -> int:
    value = doc.get("schema_version")
    if value is None:
        problems.add(
            "", f"missing top-level key 'schema_version' (expected {SUPPORTED_SCHEMA_VERSION})"
        )
        return SUPPORTED_SCHEMA_VERSION
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.add(
            "", f"key 'schema_version': expected a positive integer, found {f.describe(value)}"
        )
        return SUPPORTED_SCHEMA_VERSION
    if value > SUPPORTED_SCHEMA_VERSION:
        raise MatrixError(
            f"{problems.file}: schema_version {value} is newer than this gpudoctor "
            f"({__version__}) supports (up to {SUPPORTED_SCHEMA_VERSION})",
            hint="upgrade gpudoctor: pip install -U gpudoctor",
        )
    return value


def _table(
    doc: dict[str, object],
    table: str,
    problems: Problems,
    build: Callable[[Problems, str, dict[str, object]], T | None],
) -> tuple[T, ...]:
    raw = doc.get(table, [])
    if not isinstance(raw, list):
        problems.add(
            "", f"'{table}': expected an array of tables [[{table}]], found {f.describe(raw)}"
        )
        return ()
    rows: list[T] = []
    for index, item in enumerate(raw):
        where = row_label(table, index, item, TABLES[table])
        if not isinstance(item, dict):
            problems.add(where, f"expected a table, found {f.describe(item)}")
            continue
        row = build(problems, where, item)
        if row is not None:
            rows.append(row)
    return tuple(rows)


def _reader(problems: Problems, where: str, raw: dict[str, object], keys: str) -> RowReader:
    return RowReader(problems, where, raw, (*keys.split(), *COMMON_KEYS))


def _cuda(problems: Problems, where: str, raw: dict[str, object]) -> CudaRelease | None:
    r = _reader(problems, where, raw, "version label released min_driver_linux min_driver_windows")
    row = CudaRelease(
        version=r.get_str("version", f.CUDA_RELEASE),
        label=r.get_str("label", f.TEXT),
        released=r.get("released", f.YEAR_MONTH, required=False),
        min_driver_linux=r.get("min_driver_linux", f.DRIVER, required=False),
        min_driver_windows=r.get("min_driver_windows", f.DRIVER, required=False),
        **r.common(),
    )
    if "min_driver_linux" not in raw and not row.notes:
        r.fail(
            "missing key 'min_driver_linux' (expected a driver version, or 'notes' saying why "
            "the release's own Linux floor is unsourced: it is then judged by its major's "
            "minor-version rule only)"
        )
    return row if r.ok else None


def _cuda_major(problems: Problems, where: str, raw: dict[str, object]) -> CudaMajor | None:
    r = _reader(
        problems,
        where,
        raw,
        "major minor_compat_min_driver_linux minor_compat_min_driver_windows "
        "forward_compat_package dropped_compute_capabilities",
    )
    row = CudaMajor(
        major=r.get_int("major", f.POSITIVE_INT),
        minor_compat_min_driver_linux=r.get_str("minor_compat_min_driver_linux", f.DRIVER),
        minor_compat_min_driver_windows=r.get(
            "minor_compat_min_driver_windows", f.DRIVER, required=False
        ),
        forward_compat_package=r.get("forward_compat_package", f.TEXT, required=False),
        dropped_compute_capabilities=r.get_list(
            "dropped_compute_capabilities", f.COMPUTE_CAPABILITY, required=False, non_empty=False
        ),
        **r.common(),
    )
    return row if r.ok else None


def _architecture(problems: Problems, where: str, raw: dict[str, object]) -> Architecture | None:
    r = _reader(
        problems,
        where,
        raw,
        "compute_capability name sm datacenter_gpus consumer_gpus min_cuda max_cuda precisions "
        "precision_source",
    )
    precisions = None
    if "precisions" in raw:
        precisions = r.get_list("precisions", f.PRECISION, required=False, non_empty=False)
        if precisions and r.get("precision_source", f.URL, required=False) is None:
            r.fail("precisions needs a precision_source naming the page they come from")
    row = Architecture(
        compute_capability=r.get_str("compute_capability", f.COMPUTE_CAPABILITY),
        name=r.get_str("name", f.TEXT),
        sm=r.get_str("sm", f.TEXT),
        min_cuda=r.get_str("min_cuda", f.MAJOR_MINOR),
        max_cuda=r.get("max_cuda", f.MAJOR_MINOR, required=False),
        datacenter_gpus=r.get_list("datacenter_gpus", f.TEXT, required=False, non_empty=False),
        consumer_gpus=r.get_list("consumer_gpus", f.TEXT, required=False, non_empty=False),
        precisions=precisions,
        precision_source=r.get("precision_source", f.URL, required=False),
        **r.common(),
    )
    return row if r.ok else None


def _pytorch(problems: Problems, where: str, raw: dict[str, object]) -> PytorchRelease | None:
    r = _reader(
        problems,
        where,
        raw,
        "version released python torchvision torchaudio pypi_default_cuda judge_only variants "
        + _PROVENANCE,
    )
    variants = _variants(problems, where, r)
    row = PytorchRelease(
        version=r.get_str("version", f.PEP440),
        released=r.get("released", f.YEAR_MONTH, required=False),
        python=r.get_list("python", f.PYTHON),
        torchvision=r.get_str("torchvision", f.PEP440),
        torchaudio=r.get("torchaudio", f.PEP440, required=False),
        pypi_default_cuda=r.get("pypi_default_cuda", f.MAJOR_MINOR, required=False),
        variants=variants,
        judge_only=r.get_bool("judge_only", False),
        **_provenance(r),
        **r.common(),
    )
    return row if r.ok else None


def _variants(problems: Problems, where: str, release: RowReader) -> tuple[PytorchVariant, ...]:
    raw = release.raw.get("variants")
    if not isinstance(raw, list) or not raw:
        release.fail(
            "missing [[pytorch.variants]] (expected at least one CUDA variant)"
            if raw is None
            else f"key 'variants': expected [[pytorch.variants]] tables, found {f.describe(raw)}"
        )
        return ()
    out: list[PytorchVariant] = []
    for index, item in enumerate(raw):
        label = f"{where} > {row_label('pytorch.variants', index, item, 'cuda')}"
        if not isinstance(item, dict):
            release.fail(f"{label}: expected a table, found {f.describe(item)}")
            continue
        r = _reader(problems, label, item, "cuda tag index_url cudnn arch_list nccl " + _PROVENANCE)
        variant = PytorchVariant(
            cuda=r.get_str("cuda", f.MAJOR_MINOR),
            tag=r.get_str("tag", f.CUDA_TAG),
            index_url=r.get_str("index_url", f.URL),
            cudnn=r.get_str("cudnn", f.DOTTED),
            arch_list=r.get_list("arch_list", f.ARCH_ENTRY, required=False),
            nccl=r.get("nccl", f.DOTTED, required=False),
            **_provenance(r),
            **r.common(),
        )
        release.ok = release.ok and r.ok
        out.append(variant)
    return tuple(out)


_PROVENANCE = "exists read"


def _provenance(r: RowReader) -> dict[str, Any]:
    """`exists` (the primary source that the build exists) and `read` (the facts read from the
    artifact itself): docs/matrix-format.md, "Provenance"."""
    return {
        "exists": r.get("exists", f.URL, required=False) or "",
        "read": r.get_list("read", f.ARTIFACT_FACT, required=False, non_empty=False),
    }


def _tensorflow(problems: Problems, where: str, raw: dict[str, object]) -> TensorflowRelease | None:
    r = _reader(problems, where, raw, "version python cuda cudnn pip " + _PROVENANCE)
    row = TensorflowRelease(
        version=r.get_str("version", f.PEP440),
        python=r.get_list("python", f.PYTHON),
        cuda=r.get_str("cuda", f.MAJOR_MINOR),
        cudnn=r.get_str("cudnn", f.DOTTED),
        pip=r.get_str("pip", f.REQUIREMENT),
        **_provenance(r),
        **r.common(),
    )
    return row if r.ok else None


def _base_image(problems: Problems, where: str, raw: dict[str, object]) -> BaseImage | None:
    r = _reader(
        problems, where, raw, "cuda repository flavors distros cudnn_tag cudnn digests end_of_life"
    )
    row = BaseImage(
        cuda=r.get_str("cuda", f.CUDA_RELEASE),
        repository=r.get_str("repository", f.TEXT),
        flavors=r.get_list("flavors", f.FLAVOR),
        distros=r.get_list("distros", f.DISTRO),
        cudnn_tag=r.get("cudnn_tag", f.CUDNN_TAG, required=False),
        cudnn=r.get("cudnn", f.DOTTED, required=False),
        digests=_digests(r),
        end_of_life=r.get_bool("end_of_life", False),
        **r.common(),
    )
    return row if r.ok else None


def _digests(r: RowReader) -> tuple[tuple[str, str], ...]:
    raw = r.raw.get("digests", {})
    if not isinstance(raw, dict):
        r.fail(f"key 'digests': expected a table of TAG = \"sha256:...\", found {f.describe(raw)}")
        return ()
    out: list[tuple[str, str]] = []
    for tag, digest in sorted(raw.items()):
        if f.DIGEST.check(digest) and isinstance(digest, str):
            out.append((tag, digest))
        else:
            found = f.describe(digest)
            r.fail(f"key 'digests', tag '{tag}': expected {f.DIGEST.expected}, found {found}")
    return tuple(out)


def _mig_gpu(problems: Problems, where: str, raw: dict[str, object]) -> MigGpu | None:
    r = _reader(problems, where, raw, "name compute_capability max_instances min_driver_linux")
    row = MigGpu(
        name=r.get_str("name", f.TEXT),
        compute_capability=r.get_str("compute_capability", f.COMPUTE_CAPABILITY),
        max_instances=r.get_int("max_instances", f.POSITIVE_INT),
        min_driver_linux=r.get_str("min_driver_linux", f.DRIVER),
        **r.common(),
    )
    return row if r.ok else None


def _distro(problems: Problems, where: str, raw: dict[str, object]) -> Distro | None:
    r = _reader(problems, where, raw, "name package_manager pythons image")
    row = Distro(
        name=r.get_str("name", f.DISTRO),
        package_manager=r.get_str("package_manager", f.PACKAGE_MANAGER),
        pythons=r.get_list("pythons", f.PYTHON),
        image=r.get("image", f.TEXT, required=False),
        **r.common(),
    )
    return row if r.ok else None


def _driver_branch(problems: Problems, where: str, raw: dict[str, object]) -> DriverBranch | None:
    r = _reader(
        problems,
        where,
        raw,
        "branch designation end_of_life max_cuda_major last_for vgpu_release vgpu_source",
    )
    max_major = r.get_int("max_cuda_major", f.POSITIVE_INT) if "max_cuda_major" in raw else None
    vgpu = r.get_int("vgpu_release", f.POSITIVE_INT) if "vgpu_release" in raw else None
    row = DriverBranch(
        branch=r.get_str("branch", f.BRANCH),
        designation=r.get_str("designation", f.BRANCH_SUPPORT),
        end_of_life=r.get("end_of_life", f.END_OF_LIFE, required=False),
        max_cuda_major=max_major,
        last_for=r.get_list("last_for", f.TEXT, required=False),
        vgpu_release=vgpu,
        vgpu_source=r.get("vgpu_source", f.TEXT, required=vgpu is not None) or "",
        **r.common(),
    )
    return row if r.ok else None


def _wheel(problems: Problems, where: str, raw: dict[str, object]) -> PlatformWheel | None:
    r = _reader(problems, where, raw, "framework version machine index cuda wheel " + _PROVENANCE)
    row = PlatformWheel(
        framework=r.get_str("framework", f.FRAMEWORK),
        version=r.get_str("version", f.PEP440),
        machine=r.get_str("machine", f.MACHINE),
        index=r.get_str("index", f.WHEEL_INDEX),
        cuda=r.get_str("cuda", f.WHEEL_CUDA),
        wheel=r.get("wheel", f.TEXT, required=False),
        **_provenance(r),
        **r.common(),
    )
    return row if r.ok else None


def _image_platform(problems: Problems, where: str, raw: dict[str, object]) -> ImagePlatform | None:
    r = _reader(problems, where, raw, "repository platform min_cuda")
    row = ImagePlatform(
        repository=r.get_str("repository", f.TEXT),
        platform=r.get_str("platform", f.OCI_PLATFORM),
        min_cuda=r.get_str("min_cuda", f.CUDA_RELEASE),
        **r.common(),
    )
    return row if r.ok else None


def _program(problems: Problems, where: str, raw: dict[str, object]) -> ProgramMinimum | None:
    r = _reader(problems, where, raw, "name min_compute_capability versions pip")
    row = ProgramMinimum(
        name=r.get_str("name", f.TEXT),
        min_compute_capability=r.get_str("min_compute_capability", f.COMPUTE_CAPABILITY),
        versions=r.get("versions", f.SPECIFIER, required=False) or "",
        pip=r.get_bool("pip", True),
        **r.common(),
    )
    return row if r.ok else None


def _nccl(problems: Problems, where: str, raw: dict[str, object]) -> NcclRelease | None:
    r = _reader(
        problems,
        where,
        raw,
        "versions build_cuda architectures bad_compute_capabilities fixed_in problem "
        "peermem_detected",
    )
    peermem = raw.get("peermem_detected")
    row = NcclRelease(
        versions=r.get_str("versions", f.SPECIFIER),
        build_cuda=r.get("build_cuda", f.SPECIFIER, required=False) or "",
        architectures=r.get_list("architectures", f.ARCH_ENTRY, required=False),
        bad_compute_capabilities=r.get_list(
            "bad_compute_capabilities", f.COMPUTE_CAPABILITY, required=False
        ),
        fixed_in=r.get("fixed_in", f.PEP440, required=False),
        problem=r.get("problem", f.TEXT, required=False) or "",
        peermem_detected=r.get_bool("peermem_detected", False) if peermem is not None else None,
        **r.common(),
    )
    kinds = [bool(row.architectures), bool(row.bad_compute_capabilities), peermem is not None]
    if sum(kinds) != 1:
        r.fail(
            "a row states one fact: 'architectures', 'bad_compute_capabilities' (with "
            "'fixed_in' and 'problem') or 'peermem_detected'"
        )
    if row.bad_compute_capabilities and not (row.fixed_in and row.problem):
        r.fail("'bad_compute_capabilities' needs 'fixed_in' and 'problem'")
    return row if r.ok else None
