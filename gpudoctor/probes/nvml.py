"""NVML probe: what the NVIDIA driver's management library says about this host and its GPUs.

Entry point: `probe_nvml(nvml=None, *, redact=True, timeout_s=5.0, read_uuids=None)
-> (NvmlFacts, issues)`.

- `nvml` is the edge: a `pynvml` module (nvidia-ml-py). None imports the installed one lazily,
  and only when libnvidia-ml.so.1 loads (else library_not_found is recorded unimported);
  tests pass the real binding over a stand-in libnvidia-ml.so.1 (tests/nvml/fake_nvml.c).
- NVML can hang on a broken GPU, so the work runs in a daemon thread and the caller waits at
  most `timeout_s`. On timeout the facts collected so far come back with status "unknown", a
  `nvml-timeout` issue naming the call in flight, and the GPU being read marked lost.
- Init failures are classified into `NvmlFacts.status` (library_not_found, driver_not_loaded,
  lib_rm_version_mismatch, no_permission, unknown), each with a ProbeIssue. nvmlShutdown follows
  every successful nvmlInit. Nothing here raises; nothing touches NVML at import.

`python -m gpudoctor.probes.nvml [--no-redact] [--timeout S]` prints the facts and issues as
JSON, for a quick look at a host and for the tests' subprocess runs.
"""

from __future__ import annotations

import sys
import threading
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

from gpudoctor.facts import GpuFacts, NvmlFacts, ProbeIssue
from gpudoctor.facts_json import to_dict
from gpudoctor.nvml_codes import INIT_STATUS
from gpudoctor.probes import dist_info
from gpudoctor.probes.nvml_decode import (
    cuda_version_text,
    library_from_maps,
    library_version_from_path,
    text,
)
from gpudoctor.probes.nvml_device import collect_gpu
from gpudoctor.probes.nvml_links import collect_pairs
from gpudoctor.probes.nvml_session import (
    PROBE,
    Cancelled,
    NvmlSession,
    describe,
    error_code,
)

# nvmlInit failures: NVML code -> (status, issue code, why, in words a user can act on); the
# status of each code is nvml_codes', which a pasted report's NVML error names map to as well.
_INIT_FAILURES: dict[int, tuple[str, str, str]] = {
    12: (
        INIT_STATUS[12][1],
        "nvml-library-not-found",
        "libnvidia-ml.so.1 could not be loaded: no NVIDIA driver is installed, or (in a "
        "container) the driver libraries are not mounted in",
    ),
    9: (
        INIT_STATUS[9][1],
        "nvml-driver-not-loaded",
        "libnvidia-ml.so.1 is present but the NVIDIA kernel module is not loaded",
    ),
    18: (
        INIT_STATUS[18][1],
        "nvml-lib-rm-version-mismatch",
        "Driver/library version mismatch: the user-space driver libraries and the loaded kernel "
        "module are different versions (driver upgraded without a reboot or module reload)",
    ),
    4: (
        INIT_STATUS[4][1],
        "nvml-no-permission",
        "no permission to use the NVIDIA device nodes (/dev/nvidiactl, /dev/nvidia*)",
    ),
}

_OFFICIAL = "nvidia-ml-py"
_UNOFFICIAL = "pynvml"  # gpuopenanalytics/pynvml: older releases ship their own pynvml module


def probe_nvml(
    nvml: ModuleType | None = None,
    *,
    redact: bool = True,
    timeout_s: float = 5.0,
    read_uuids: bool | None = None,
) -> tuple[NvmlFacts, list[ProbeIssue]]:
    """Collect NvmlFacts. Never raises; problems come back as ProbeIssues.

    `redact` leaves serials unread; UUIDs are read when `read_uuids` (default: not `redact`):
    collect_facts reads them to map UUIDs in *_VISIBLE_DEVICES to indexes, then drops them.

    Statuses and their usual causes:
        library_not_found: NVMLError_LibraryNotFound, no driver installed or not mounted into
            the container. driver_not_loaded: NVMLError_DriverNotLoaded, kernel module not
            loaded. lib_rm_version_mismatch: NVMLError_LibRmVersionMismatch, driver upgraded
            without a reboot. no_permission: NVMLError_NoPermission, device nodes not
            accessible. unknown: any other init error, or NVML did not answer in time.
            not_run: the nvidia-ml-py binding is not importable.
    """
    if nvml is None:
        absent = _library_absent()
        if absent is not None:
            return absent
        try:
            import pynvml
        except ImportError as exc:
            reason = f"the nvidia-ml-py package (module pynvml) cannot be imported: {exc}"
            issue = ProbeIssue(PROBE, "nvml", "nvml-bindings-missing", reason)
            return NvmlFacts(status="not_run", error=reason), [issue]
        nvml = pynvml
    session = NvmlSession(nvml, redact=redact, read_uuids=read_uuids)
    worker = threading.Thread(target=_work, args=(session,), name="gpudoctor-nvml", daemon=True)
    worker.start()
    worker.join(max(timeout_s, 0.0))
    timed_out = worker.is_alive()
    result = _facts(
        session, describe_bindings(nvml), timed_out, timeout_s
    )  # before the worker unwinds
    if timed_out:
        session.cancelled.set()  # the worker stops at its next call and shuts NVML down
    return result


# str() of nvidia-ml-py's NVMLError_LibraryNotFound (NVMLError._errcode_to_string in pynvml.py)
# as `describe` words it: what the binding's own nvmlInit would have recorded.
_LIBRARY_NOT_FOUND_ERROR = "NVML Shared Library Not Found (NVML error 12)"
_LIBRARY = "libnvidia-ml.so.1"


def _library_absent() -> tuple[NvmlFacts, list[ProbeIssue]] | None:
    """The facts nvmlInit's library_not_found gives, when libnvidia-ml.so.1 cannot be loaded;
    else None. Importing pynvml (and the `logging` it pulls in) slows every `check` start,
    mostly on hosts without a driver: so the library is loaded first the way nvidia-ml-py's
    _LoadNvmlLibrary does on Linux (`CDLL("libnvidia-ml.so.1")`, through the loader's search:
    LD_LIBRARY_PATH, the cache), and pynvml is imported only when it loads. The binding is
    described from its file, unimported: no file, or not plain source, leaves it to the import.
    """
    if sys.platform.startswith("win"):
        return None  # nvml.dll is looked for in two places there: the binding's job

    try:
        spec = find_spec("pynvml")
    except (ImportError, ValueError):
        return None
    origin = spec.origin if spec is not None else None
    get_data = getattr(spec.loader if spec is not None else None, "get_data", None)
    if not origin or not origin.endswith(".py") or get_data is None:
        return None
    try:
        source = get_data(origin)  # the loader's read: also inside gpudoctor.pyz (a zip)
    except OSError:
        source = None
    if not isinstance(source, bytes):
        return None
    import ctypes

    try:
        ctypes.CDLL(_LIBRARY)
    except OSError:
        pass
    else:
        return None
    issue_code, reason = _INIT_FAILURES[12][1:]
    session = NvmlSession(ModuleType("pynvml"), redact=True)
    session.status = "library_not_found"
    session.error = _LIBRARY_NOT_FOUND_ERROR
    session.issue("nvml", issue_code, reason)
    official_shape = b"\ndef _nvmlGetFunctionPointer(" in source
    return _facts(session, _bindings(official_shape, origin), False, 0.0)


def _work(session: NvmlSession) -> None:
    """The thread body: init, collect, shutdown."""
    try:
        session.nvml.nvmlInit()
    except Exception as exc:  # classified, never propagated
        _init_failed(session, exc)
        return
    session.status = "ok"
    try:
        _collect(session)
    except Cancelled:
        pass
    except Exception as exc:  # a binding surprise must not crash the run
        session.issue("nvml", "nvml-probe-failed", f"{session.step}: {describe(exc)}")
    finally:
        try:
            session.nvml.nvmlShutdown()
        except Exception as exc:
            session.issue("nvml", "nvml-query-failed", f"nvmlShutdown: {describe(exc)}")


def _init_failed(session: NvmlSession, exc: BaseException) -> None:
    code = error_code(exc) if isinstance(exc, session.nvml_error) else None
    status, issue_code, reason = _INIT_FAILURES.get(
        code if code is not None else -1,
        ("unknown", "nvml-init-failed", f"nvmlInit failed: {describe(exc)}"),
    )
    session.status = status
    session.error = describe(exc)
    session.issue("nvml", issue_code, reason)


def _collect(session: NvmlSession) -> None:
    """nvidia-smi --query-gpu=driver_version,count; nvidia-smi (CUDA Version)"""
    system = session.system
    system["driver_version"] = text(
        session.query("nvmlSystemGetDriverVersion", field="driver_version")
    )
    # The v1 call: nvmlSystemGetCudaDriverVersion_v2 asks libcuda and fails where libcuda.so.1
    # is absent.
    cuda = session.query("nvmlSystemGetCudaDriverVersion", field="cuda_driver_version")
    system["cuda_driver_version"] = None if cuda is None else cuda_version_text(int(cuda))
    system["nvml_version"] = text(session.query("nvmlSystemGetNVMLVersion", field="nvml_version"))
    count = session.query(
        "nvmlDeviceGetCount", field="device_count", symbol="nvmlDeviceGetCount_v2"
    )
    system["device_count"] = count
    for index in range(int(count or 0)):
        session.gpus.append(collect_gpu(session, index))
    lost = {g.index for g in session.gpus if g.lost}
    if int(count or 0) > 1:  # nvidia-smi topo -m; topo -p2p rwna
        system["pairs"] = collect_pairs(session, int(count or 0), lost)


def _facts(
    session: NvmlSession,
    bindings: tuple[str | None, str | None, bool],
    timed_out: bool,
    timeout_s: float,
) -> tuple[NvmlFacts, list[ProbeIssue]]:
    gpus: list[GpuFacts] = list(session.gpus)  # copy before reading current_gpu (no duplicate)
    current = session.current_gpu
    issues = list(session.issues)
    status, error = session.status, session.error
    if timed_out:
        error = f"NVML did not answer within {timeout_s:g} s (in {session.step})"
        status = "unknown"
        issues.append(ProbeIssue(PROBE, "nvml", "nvml-timeout", error))
        if current is not None and all(g.index != current.get("index") for g in gpus):
            gpus.append(GpuFacts(**{**current, "lost": True, "error": error}))
    library_path = _loaded_library()
    package, version, shadowed = bindings
    facts = NvmlFacts(
        status=status,
        error=error,
        library_path=library_path,
        library_version=library_version_from_path(library_path) if library_path else None,
        bindings_package=package,
        bindings_version=version,
        bindings_shadowed=shadowed,
        gpus=tuple(gpus),
        functions_not_found=tuple(sorted(session.functions_not_found)),
        **dict(session.system),
    )
    return facts, issues


def _loaded_library(maps: Path = Path("/proc/self/maps")) -> str | None:
    """The libnvidia-ml.so this process mapped, resolved through the .so.1 link (Linux)."""
    try:
        path = library_from_maps(maps.read_text(encoding="utf-8", errors="replace"))
        return str(Path(path).resolve()) if path else None
    except OSError:
        return None


def describe_bindings(nvml: ModuleType) -> tuple[str | None, str | None, bool]:
    """(distribution, its version, shadowed) for the `pynvml` module in use.

    Shadowed: the module is not NVIDIA's nvidia-ml-py but the unofficial `pynvml` package's
    copy, recognised as nvitop and gpustat do by the missing `_nvmlGetFunctionPointer`
    (gpustat#153, gpuopenanalytics/pynvml#47), or by the file belonging to that distribution.
    """
    official_shape = callable(getattr(nvml, "_nvmlGetFunctionPointer", None))
    return _bindings(official_shape, getattr(nvml, "__file__", None))


def _bindings(official_shape: bool, module_file: Any) -> tuple[str | None, str | None, bool]:
    owner = _owning_distribution(module_file)
    package, version = owner if owner else (None, None)
    return package, version, (not official_shape) or package == _UNOFFICIAL


def _owning_distribution(module_file: Any) -> tuple[str, str] | None:
    """(name, version) of the distribution whose RECORD lists `module_file`, read without
    importlib.metadata (dist_info.py)."""
    if not isinstance(module_file, str):
        return None

    target = Path(module_file).resolve()
    for name in (_OFFICIAL, _UNOFFICIAL):
        dist = dist_info.find(name)
        if dist is None:
            continue
        for file in dist.files or ():
            parts = Path(file).parts
            if (
                parts
                and parts[0].startswith("pynvml")
                and dist.locate_file(file).resolve() == target
            ):
                return name, dist.version
    return None


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog="python -m gpudoctor.probes.nvml", description="Print what NVML says, as JSON."
    )
    parser.add_argument("--no-redact", action="store_true", help="include GPU UUIDs and serials")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for NVML")
    args = parser.parse_args(argv)
    facts, issues = probe_nvml(redact=not args.no_redact, timeout_s=args.timeout)
    print(json.dumps({"nvml": to_dict(facts), "issues": to_dict(issues)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
