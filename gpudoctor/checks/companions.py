"""torch's companions: the torchvision and torchaudio installed beside torch must be of torch's
release and of its CUDA major. torchvision's C++ operators are built against one torch release
(another release: "operator torchvision::nms does not exist", "Couldn't load custom C++ ops");
its extension refuses a torch of another CUDA major at import ("PyTorch and torchvision were
compiled with different CUDA major versions"). The pairs are the matrix's `torchvision` and
`torchaudio` of each `[[pytorch]]` release (the release's install command names them).

Sources: pytorch/vision torchvision/extension.py (_check_cuda_version compares the CUDA majors;
_assert_has_ops names incompatible torch and torchvision versions), pytorch/vision README
(installation: the torchvision release of each torch release).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.suggest import installed_build
from gpudoctor.compat.install import for_build
from gpudoctor.findings import ERROR, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.queries import pytorch_release_for

if TYPE_CHECKING:
    from gpudoctor.facts import Companion, FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix, PytorchRelease

CODE = "framework-companions"


def check_framework_companions(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    torches = [fw for fw in facts.frameworks if fw.name == "torch" and fw.companions]
    if not torches:
        return [finding(CODE, NA, "no torchvision or torchaudio read beside torch")]
    return [_judge(matrix, fw) for fw in torches]


def _judge(matrix: Matrix, fw: FrameworkFacts) -> Finding:
    shown = ", ".join(_label(c) for c in fw.companions)
    ev: list[tuple[str, object]] = [("torch", fw.version), ("companions", shown)]
    release = pytorch_release_for(matrix, fw.version)
    if release is None:
        return finding(
            CODE,
            UNKNOWN,
            f"{fw.label}: its release is not in the matrix, so its {shown} cannot be judged",
            evidence=ev,
            subject=fw.name,
        )
    wrong_release = [
        (c, want)
        for c in fw.companions
        if (want := _paired(release, c)) and not _nightly(fw, c) and not _same(c, want)
    ]
    wrong_cuda = [c for c in fw.companions if _cuda_major_differs(fw, c)]
    if not wrong_release and not wrong_cuda:
        return finding(CODE, OK, f"{fw.label} with {shown}", evidence=ev, subject=fw.name)
    series = versions.major_minor(fw.version)
    parts = [
        f"{_label(c)} is not of torch {series}'s release ({series} pairs with {c.name} "
        f"{want}{_other_release(matrix, c)})"
        for c, want in wrong_release
    ]
    parts += [
        f"{_label(c)} is built for {_build_of(c.local)}, torch for {_build_of(_local(fw))}"
        for c in wrong_cuda
    ]
    severity = ERROR if wrong_release or any(_both_cuda(fw, c) for c in wrong_cuda) else WARN
    return finding(
        CODE,
        severity,
        "; ".join(parts),
        detail="torchvision's and torchaudio's compiled operators are built against one torch "
        "release and CUDA major: another release fails to load them ('operator "
        "torchvision::nms does not exist', 'Couldn't load custom C++ ops', undefined symbols), "
        "and torchvision refuses a torch of another CUDA major at import; a CPU-only companion "
        "of a CUDA torch has no GPU operators",
        fix=_fix(matrix, fw, release),
        evidence=ev,
        subject=fw.name,
    )


def _label(c: Companion) -> str:
    return f"{c.name} {c.version}{'+' + c.local if c.local else ''}"


def _paired(release: PytorchRelease, c: Companion) -> str | None:
    return {"torchvision": release.torchvision, "torchaudio": release.torchaudio}.get(c.name)


def _nightly(fw: FrameworkFacts, c: Companion) -> bool:
    # a nightly's companions are numbered for the next release: no matrix pair to hold them to
    return "dev" in fw.version or "dev" in c.version


def _same(c: Companion, want: str) -> bool:
    # a patch release of the same series is built for the same torch series
    return versions.major_minor(c.version) == versions.major_minor(want)


def _other_release(matrix: Matrix, c: Companion) -> str:
    """ ", the companion of torch 2.0": the release the installed companion was made for."""
    series = versions.major_minor(c.version)
    for row in matrix.pytorch:
        paired = _paired(row, c)
        if paired and versions.major_minor(paired) == series:
            return f"; {c.version} is torch {versions.major_minor(row.version)}'s"
    return ""


def _local(fw: FrameworkFacts) -> str:
    return fw.version.partition("+")[2]


def _cuda_major(local: str) -> int | None:
    """ "cu121" -> 12, "cu118" -> 11, "cu92" -> 9; None for "cpu", "rocm6.1" or no tag."""
    cuda = versions.cuda_of_tag(local)
    return versions.major(cuda) if cuda else None


def _both_cuda(fw: FrameworkFacts, c: Companion) -> bool:
    return _cuda_major(_local(fw)) is not None and _cuda_major(c.local) is not None


def _cuda_major_differs(fw: FrameworkFacts, c: Companion) -> bool:
    """Another CUDA major, or a CPU-only companion of a CUDA torch (and the reverse): only
    what the local tags say; an untagged wheel (PyPI's default) is not judged by its tag."""
    mine, theirs = _local(fw), c.local
    if not mine or not theirs:
        return False
    if _both_cuda(fw, c):
        return _cuda_major(mine) != _cuda_major(theirs)
    return (mine == "cpu") != (theirs == "cpu") and (
        _cuda_major(mine) is not None or _cuda_major(theirs) is not None
    )


def _build_of(local: str) -> str:
    major = _cuda_major(local)
    return f"CUDA {major} ({local})" if major is not None else local


def _fix(matrix: Matrix, fw: FrameworkFacts, release: PytorchRelease) -> str:
    names = " and ".join(c.name for c in fw.companions)
    build = installed_build(matrix, fw)
    if build is not None:
        line = for_build(build, build.index_url, " --force-reinstall")
        return f"install torch with the {names} of its release and build together: `{line}`"
    pairs = ", ".join(f"{c.name} {want}" for c in fw.companions if (want := _paired(release, c)))
    return (
        f"install the {names} of torch {release.version}'s release ({pairs}) from the same "
        f"index as torch ({_local(fw) or 'the same build'})"
    )


CHECKS = (check_framework_companions,)
