"""Library shadowing: a system copy of a CUDA library that the dynamic loader finds before the
copy a framework's nvidia-* wheels bring (every library of cuda_wheels.WHEEL_LIBRARIES: cuDNN,
cuBLAS, NCCL, nvJitLink, cuSPARSE, cuFFT, ...). torch and TensorFlow find their wheels' libraries
through RUNPATH, and LD_LIBRARY_PATH is searched before RUNPATH (ld.so(8)), so a folder on it
holding the same soname in another version wins: "Could not load symbol cudnnGetLibConfig",
"undefined symbol: ncclCommRegister", "undefined symbol: __nvJitLinkAddData_12_1, version
libnvJitLink.so.12". cuDNN, cuBLAS and NCCL must match their wheel's version; the other
libraries serve callers of their own or an older version, so only an older copy shadows them.
A copy that a pasted `ldd` or LD_DEBUG trace shows loaded from a system folder is a warning
(the framework did not find its own). A copy only listed in the loader cache (ld.so.conf) is a
note: the cache is searched after RUNPATH, and the wheels' own libraries carry RPATH $ORIGIN
(nvidia-cudnn's libcudnn.so.9 opens its sub-libraries from its own folder), so it serves only
programs that open the library by bare name. A recorded H200 host shows it: libcudnn 9.14.0 in
the cache, and torch loaded its wheel's 9.19.0. Pure; no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.cuda_wheels import wheel_libraries
from gpudoctor.findings import ERROR, INFO, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts, LibraryFact
    from gpudoctor.matrix.model import Matrix

CODE = "library-shadowing"
_EXACT = frozenset({"libcudnn", "libcublas", "libcublasLt", "libnccl"})  # must match exactly


def _wheels(fw: FrameworkFacts) -> dict[str, str]:
    """Library name (libcudnn, libnvJitLink, ...) -> the version its nvidia-* wheel brings."""
    out: dict[str, str] = {}
    for b in fw.bundled:
        for lib in wheel_libraries(b.package):
            out[lib] = b.version
    return out


def _clash(lib: LibraryFact, wheel: str) -> str | None:
    """Why `lib` shadows the wheel's copy, or None when it does not (another soname, the same
    version, or a newer copy of a library that serves older callers). "unknown" when the file
    name carries only the major."""
    have, want = versions.release(lib.version), versions.release(wheel)
    if have is None or want is None or have[0] != want[0]:
        return None  # another major is another soname: the loader keeps them apart
    if len(have) < 2:
        return "unknown"
    n = min(len(have), len(want))
    if have[:n] == want[:n]:
        return None
    if lib.name in _EXACT:
        return "differs"
    return "older" if have[:n] < want[:n] else None


def check_library_shadowing(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    frameworks = [(fw, _wheels(fw)) for fw in facts.frameworks]
    frameworks = [(fw, w) for fw, w in frameworks if w]
    if not frameworks:
        return [finding(CODE, NA, "no framework with nvidia-* CUDA library wheels")]
    return [_judge(facts, fw, wheels) for fw, wheels in frameworks]


def _judge(facts: HostFacts, fw: FrameworkFacts, wheels: dict[str, str]) -> Finding:
    loaded = _loaded(facts, fw, wheels)
    if loaded.severity is not OK:
        return loaded
    for lib in facts.cuda_libs.loader_cache_libs:
        wheel = wheels.get(lib.name)
        if wheel and _clash(lib, wheel) is not None:
            return _cached(fw, lib, wheel)
    return loaded


def _cached(fw: FrameworkFacts, lib: LibraryFact, wheel: str) -> Finding:
    return finding(
        CODE,
        INFO,
        f"{lib.name} {lib.version or '?'} in the loader cache (ld.so.conf) beside {fw.name}'s own "
        f"{lib.name} {wheel}: {fw.name} loads its own first",
        detail=f"{lib.path} is listed in the loader cache, which is searched after the "
        f"framework's RUNPATH, so only a program that opens {lib.name} by bare name gets it",
        evidence=[
            ("library", lib.path),
            ("library_version", lib.version),
            ("wheel_version", wheel),
        ],
        subject=fw.name,
    )


def _loaded(facts: HostFacts, fw: FrameworkFacts, wheels: dict[str, str]) -> Finding:
    libs = facts.cuda_libs
    subject = fw.name
    for sources, severity in ((libs.ld_library_path_libs, ERROR), (libs.resolved_libs, WARN)):
        for lib in sources:
            wheel = wheels.get(lib.name)
            why = _clash(lib, wheel) if wheel else None
            if why is None:
                continue
            folder = lib.path.rsplit("/", 1)[0]
            where = (
                "LD_LIBRARY_PATH"
                if severity is ERROR
                else f"{folder} (found through the loader cache)"
            )
            sev = severity if why in ("differs", "older") else WARN
            return finding(
                CODE,
                sev,
                f"{lib.name} {lib.version or '?'} in {where} can shadow {fw.name}'s own "
                f"{lib.name} {wheel}" + (" (an older copy)" if why == "older" else ""),
                detail=f"{lib.path} is found before the {fw.name} wheel's copy; expect "
                "'Could not load symbol ...' or 'undefined symbol: ...' when the versions "
                "differ",
                fix=f"remove {folder} from LD_LIBRARY_PATH"
                if severity is ERROR
                else f"remove the {lib.name} package of that version, or its folder from "
                "/etc/ld.so.conf.d, then `sudo ldconfig`",
                evidence=[
                    ("library", lib.path),
                    ("library_version", lib.version),
                    ("wheel_version", wheel),
                ],
                subject=subject,
            )
    return finding(
        CODE,
        OK,
        f"no system CUDA library shadows {fw.name}'s own wheels",
        evidence=[("wheels", sorted(f"{k} {v}" for k, v in wheels.items()))],
        subject=subject,
    )


CHECKS = (check_library_shadowing,)
