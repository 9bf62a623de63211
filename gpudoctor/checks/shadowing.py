"""Library shadowing: a system cuDNN, cuBLAS or NCCL that the dynamic loader finds before the
copy a framework's nvidia-* wheels bring. torch and TensorFlow find their wheels' libraries
through RUNPATH, and LD_LIBRARY_PATH is searched before RUNPATH (ld.so(8)), so a folder on it
holding the same soname in another version wins: "Could not load symbol cudnnGetLibConfig",
"undefined symbol: ncclCommRegister". The loader cache (ld.so.conf) comes after RUNPATH; it
bites only where a library is opened by bare name, so it is a warning. Pure; no I/O.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding, version_tuple
from gpudoctor.checks.model import ERROR, NA, OK, WARN, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts, LibraryFact
    from gpudoctor.matrix.model import Matrix

CODE = "library-shadowing"
_WHEEL = re.compile(r"^nvidia-(cudnn|cublas|nccl)(?:-cu\d+)?$")


def _wheels(fw: FrameworkFacts) -> dict[str, str]:
    """libcudnn/libcublas/libnccl -> the version its nvidia-* wheel brings."""
    out: dict[str, str] = {}
    for b in fw.bundled:
        match = _WHEEL.match(b.package)
        if match:
            out[f"lib{match.group(1)}"] = b.version
    return out


def _clash(lib: LibraryFact, wheel: str) -> str | None:
    """Why `lib` shadows the wheel's copy, or None when it does not (another soname, or the
    same version). "unknown" when the file name carries only the major."""
    have, want = version_tuple(lib.version), version_tuple(wheel)
    if have is None or want is None or have[0] != want[0]:
        return None  # another major is another soname: the loader keeps them apart
    if len(have) < 2:
        return "unknown"
    n = min(len(have), len(want))
    return None if have[:n] == want[:n] else "differs"


def check_library_shadowing(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    frameworks = [(fw, _wheels(fw)) for fw in facts.frameworks]
    frameworks = [(fw, w) for fw, w in frameworks if w]
    if not frameworks:
        return [finding(CODE, NA, "no framework with nvidia-* cuDNN, cuBLAS or NCCL wheels")]
    return [_judge(facts, fw, wheels) for fw, wheels in frameworks]


def _judge(facts: HostFacts, fw: FrameworkFacts, wheels: dict[str, str]) -> Finding:
    libs = facts.cuda_libs
    subject = fw.name
    for sources, severity in ((libs.ld_library_path_libs, ERROR), (libs.loader_cache_libs, WARN)):
        for lib in sources:
            wheel = wheels.get(lib.name)
            why = _clash(lib, wheel) if wheel else None
            if why is None:
                continue
            where = "LD_LIBRARY_PATH" if severity is ERROR else "the loader cache (ld.so.conf)"
            sev = severity if why == "differs" else WARN
            return finding(
                CODE,
                sev,
                f"{lib.name} {lib.version or '?'} in {where} can shadow {fw.name}'s own "
                f"{lib.name} {wheel}",
                detail=f"{lib.path} is found before the {fw.name} wheel's copy; expect "
                "'Could not load symbol ...' or 'undefined symbol: ...' when the versions "
                "differ",
                fix=f"remove {lib.path.rsplit('/', 1)[0]} from LD_LIBRARY_PATH"
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
        f"no system cuDNN, cuBLAS or NCCL shadows {fw.name}'s own wheels",
        evidence=[("wheels", sorted(f"{k} {v}" for k, v in wheels.items()))],
        subject=subject,
    )


CHECKS = (check_library_shadowing,)
