"""SingularityCE's `--nvccli` GPU set-up and MIG: SingularityCE 3.9.0 to 3.9.2 bind the physical
GPUs but not the MIG devices when nvidia-container-cli sets up a non-contained container.

Source: SingularityCE's CHANGELOG (github.com/sylabs/singularity), v3.9.3: "Ensure MIGs are
visible with `--nvccli` in non-contained mode, to match the legacy GPU binding behaviour"
(pull request #489: it forces NVIDIA_VISIBLE_DEVICES=all, as the legacy `--nv` binding did);
`--nvccli` itself came with 3.9.0. Apptainer is another code base and is not judged here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.findings import NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.versions import release

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

CODE = "container-mig-devices"
FIRST = (3, 9, 0)  # --nvccli arrives
FIXED = (3, 9, 3)


def _mig_in_use(facts: HostFacts) -> bool:
    if any(g.mig_mode_current or g.mig_devices for g in facts.nvml.gpus):
        return True
    return facts.report is not None and "mig" in facts.report.named


def check_container_mig_devices(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    r = facts.container_runtime
    ev = [("singularity", r.singularity_version), ("nvccli", r.singularity_nvccli)]
    if not r.singularity_nvccli:
        return [finding(CODE, NA, "no Singularity --nvccli GPU set-up", evidence=ev)]
    name, _, version = (r.singularity_version or "").partition(" ")
    if name == "apptainer":
        return [finding(CODE, NA, "Apptainer: not judged here", evidence=ev)]
    got = release(version) if version else None
    if got is None:
        return [finding(CODE, UNKNOWN, "--nvccli in use; the SingularityCE version is not known",
                        evidence=ev)]  # fmt: skip
    if not FIRST <= got < FIXED:
        return [finding(CODE, OK, f"SingularityCE {version} binds MIG devices with --nvccli",
                        evidence=ev)]  # fmt: skip
    if not _mig_in_use(facts):
        return [finding(CODE, NA, "no MIG device in use", evidence=ev)]
    return [
        finding(
            CODE,
            WARN,
            f"SingularityCE {version} with --nvccli binds no MIG devices into a non-contained "
            "container",
            detail="From 3.9.0 to 3.9.2, the --nvccli set-up hands nvidia-container-cli only "
            "the physical GPUs unless NVIDIA_VISIBLE_DEVICES names devices, so the MIG "
            "capability devices (/dev/nvidia-caps/*) are missing in the container and CUDA "
            "sees no MIG device; fixed in SingularityCE 3.9.3 (CHANGELOG).",
            fix="upgrade SingularityCE to 3.9.3 or newer; until then run with "
            "NVIDIA_VISIBLE_DEVICES=all (or the MIG UUIDs) set, or with --nv without --nvccli",
            evidence=ev,
        )
    ]


CHECKS = (check_container_mig_devices,)
