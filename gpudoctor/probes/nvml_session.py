"""The one choke point for NVML calls: every query goes through `NvmlSession.query`.

NVML answers most questions with an error code rather than a value, and what the code means
decides whether a doctor should say anything (nvitop's `nvmlQuery`, gpustat's `safenvml`):

- NotSupported (3), NotFound (6): the feature does not apply here (ECC on GeForce, MIG before
  Ampere, an empty MIG slot). The value is None and nothing is reported.
- FunctionNotFound (13): the binding is newer than the driver's library. The value is None, the
  C symbol goes into `functions_not_found`, and an older call is tried where one exists.
- NoPermission (4): None plus a ProbeIssue `nvml-no-permission` (a device node the process
  cannot open, often a container started without the GPU).
- GpuIsLost (15), Unknown (999) on a GPU: the GPU is unusable; `GpuUnusable` unwinds to the
  per-GPU collector, which turns the GPU into a placeholder record.
- anything else, including a non-NVML exception from an odd binding: None plus a ProbeIssue
  `nvml-query-failed`. A probe never crashes the run.

The worker thread writes the session while the caller may read it after a timeout. Reads take
shallow copies of plain lists and dicts, which CPython makes atomically under the GIL, so the
caller sees a consistent, possibly one-value-short, picture.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

from gpudoctor.facts import GpuFacts, ProbeIssue

PROBE = "nvml"

NO_PERMISSION = 4
NOT_SUPPORTED = 3
NOT_FOUND = 6
FUNCTION_NOT_FOUND = 13
GPU_IS_LOST = 15
UNKNOWN = 999

_NOT_APPLICABLE = frozenset({NOT_SUPPORTED, NOT_FOUND})
_GPU_GONE = frozenset({GPU_IS_LOST, UNKNOWN})


class GpuUnusable(Exception):
    """A GPU NVML cannot talk to; `lost` is False when it is only off limits (NoPermission)."""

    def __init__(self, reason: str, *, lost: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.lost = lost


class BindingLacksFunction(Exception):
    """The pynvml module has no such function (an old or unofficial binding)."""


class Cancelled(Exception):
    """The caller stopped waiting; the worker unwinds and shuts NVML down."""


def error_code(exc: BaseException) -> int | None:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) else None


def describe(exc: BaseException) -> str:
    """Text like `Driver Not Loaded (NVML error 9)`; str() of an NVMLError may call into NVML."""
    code = error_code(exc)
    try:
        message = str(exc) or type(exc).__name__
    except Exception:  # nvmlErrorString failing must not hide the code
        message = type(exc).__name__
    return (
        f"{message} (NVML error {code})" if code is not None else f"{type(exc).__name__}: {message}"
    )


class NvmlSession:
    """State of one probe run: the binding, what was collected so far, and what went wrong."""

    def __init__(self, nvml: ModuleType, *, redact: bool, read_uuids: bool | None = None) -> None:
        self.nvml = nvml
        self.redact = redact
        self.read_uuids = not redact if read_uuids is None else read_uuids
        self.status = "unknown"
        self.error: str | None = None
        self.system: dict[str, Any] = {}
        self.gpus: list[GpuFacts] = []  # appended as each GPU completes
        self.current_gpu: dict[str, Any] | None = None  # fields of the GPU being read
        self.issues: list[ProbeIssue] = []
        self.functions_not_found: list[str] = []
        self.step = "nvmlInit"  # the call in flight, named when it hangs
        self.cancelled = threading.Event()
        error_class = getattr(nvml, "NVMLError", None)
        self.nvml_error: type[BaseException] = (
            error_class
            if isinstance(error_class, type) and issubclass(error_class, BaseException)
            else _NeverRaised
        )

    def issue(self, field: str, code: str, reason: str) -> None:
        self.issues.append(ProbeIssue(probe=PROBE, field=field, code=code, reason=reason))

    def call(
        self, name: str, *args: Any, step: str | None = None
    ) -> tuple[Any, BaseException | None]:
        """Call `nvml.<name>(*args)`: (value, None) or (None, the exception). Raises Cancelled."""
        if self.cancelled.is_set():
            raise Cancelled
        fn = getattr(self.nvml, name, None)
        if not callable(fn):
            return None, BindingLacksFunction(f"the pynvml module has no {name}")
        self.step = step or name
        try:
            return fn(*args), None
        except Exception as exc:  # classified by the caller, never propagated
            return None, exc

    def query(
        self,
        name: str,
        *args: Any,
        field: str,
        gpu: int | None = None,
        symbol: str | None = None,
        fallback: tuple[str, tuple[Any, ...]] | None = None,
        quiet: frozenset[int] = frozenset(),
    ) -> Any:
        """The value of `nvml.<name>(*args)`, or None with the error classified (module doc).

        `field` names the fact for a ProbeIssue (`nvml.gpus[2].serial`); `symbol` is the C entry
        point when it differs from the Python name (versioned calls); `fallback` is the older
        call (name, args) to try when the driver lacks this one; `quiet` lists further NVML
        codes that mean "does not apply" for this call (InvalidArgument for a link number the
        GPU does not have).
        """
        label = symbol or name
        value, exc = self.call(name, *args, step=label if gpu is None else f"{label} (GPU {gpu})")
        if exc is None:
            return value
        where = f"nvml.{field}" if gpu is None else f"nvml.gpus[{gpu}].{field}"
        code = error_code(exc) if isinstance(exc, self.nvml_error) else None
        if code in _NOT_APPLICABLE or code in quiet:
            return None
        if code == FUNCTION_NOT_FOUND or isinstance(exc, BindingLacksFunction):
            self._missing(label, exc, where)
            if fallback is not None:
                return self.query(fallback[0], *fallback[1], field=field, gpu=gpu)
            return None
        if gpu is not None and code in _GPU_GONE:
            raise GpuUnusable(f"{label}: {describe(exc)}")
        kind = "nvml-no-permission" if code == NO_PERMISSION else "nvml-query-failed"
        self.issue(where, kind, f"{label}: {describe(exc)}")
        return None

    def _missing(self, symbol: str, exc: BaseException, where: str) -> None:
        if isinstance(exc, BindingLacksFunction):  # the binding predates the call, not the driver
            self.issue(where, "nvml-binding-lacks-function", str(exc))
        elif symbol not in self.functions_not_found:
            self.functions_not_found.append(symbol)


class _NeverRaised(Exception):
    """Stands in for NVMLError when a binding has none, so that no exception matches it."""
