"""The AMD checks (checks/amd.py) and the ROCm side of the model (compat/rocm.py), on the recorded
AMD hosts and on variations of them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.amd import (
    check_amd_device_access,
    check_amd_driver,
    check_amd_hsa_override,
    check_amd_intent,
    check_amd_rocm_gfx,
    check_amd_torch_build,
    check_amd_torch_gfx,
)
from gpudoctor.compat import rocm
from gpudoctor.facts import FrameworkFacts, HostFacts
from gpudoctor.facts_amd import AmdFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import HOSTS_DIR, host

E, W, INF, OK_, NA, UNK = (
    Severity.ERROR,
    Severity.WARN,
    Severity.INFO,
    Severity.OK,
    Severity.NA,
    Severity.UNKNOWN,
)


def _amd(facts: HostFacts, **kw: object) -> HostFacts:
    return replace(facts, amd=replace(facts.amd, **kw))  # type: ignore[arg-type]


def _one(found: list[Finding]) -> Finding:
    assert len(found) == 1, found
    return found[0]


def test_no_amd_gpu_no_amd_findings(matrix: Matrix) -> None:
    run = run_checks(host("h100-8x-healthy"), matrix, Intent(framework="pytorch"))
    assert not [f for f in run.findings if f.area == "amd" or f.code == "amd-intent"]


def test_gfx_targets_come_from_kfd_else_from_pci_ids(matrix: Matrix) -> None:
    mi300x = host("amd-mi300x-8x")
    assert [(t.gfx, t.count, t.name, t.kind) for t in rocm.host_targets(mi300x, matrix)] == [
        ("gfx942", 8, "AMD Instinct MI300X", "instinct")
    ]
    # amdgpu not loaded: no KFD node, the PCI id still names the model and its target.
    bare = _amd(mi300x, kfd_nodes=(), kfd_present=False)
    assert [(t.gfx, t.count) for t in rocm.host_targets(bare, matrix)] == [("gfx942", 8)]


def test_unbound_gpu_and_missing_kfd_are_errors(matrix: Matrix) -> None:
    facts = host("amd-mi300x-8x")
    cards = tuple(replace(c, driver=None) for c in facts.amd.pci_gpus[:2]) + facts.amd.pci_gpus[2:]
    f = _one(check_amd_driver(_amd(facts, pci_gpus=cards), matrix, Intent()))
    assert (f.severity, f.title) == (E, "2 of 8 AMD GPU(s) have no amdgpu driver bound")
    f = _one(check_amd_driver(_amd(facts, kfd_nodes=(), kfd_present=False), matrix, Intent()))
    assert f.severity is E
    assert "KFD topology lists no AMD GPU" in f.title
    f = _one(check_amd_driver(_amd(facts, amdgpu_loaded=False), matrix, Intent()))
    assert f.severity is E
    assert "not loaded" in f.title
    ok = _one(check_amd_driver(facts, matrix, Intent()))
    assert ok.severity is OK_
    assert "8 × gfx942 (AMD Instinct MI300X)" in ok.title  # noqa: RUF001


def test_group_member_with_closed_bits_gets_the_udev_fix(matrix: Matrix) -> None:
    facts = host("amd-mi300x-8x")
    nodes = tuple(replace(n, accessible=False, mode="0600") for n in facts.amd.device_nodes)
    f = _one(check_amd_device_access(_amd(facts, device_nodes=nodes), matrix, Intent()))
    assert f.severity is E
    assert "udev" in f.fix
    assert "usermod" not in f.fix


def test_unknown_rocm_release_is_unknown(matrix: Matrix) -> None:
    facts = _amd(host("amd-mi300x-8x"), rocm_version="9.9.0-1")
    f = _one(check_amd_rocm_gfx(facts, matrix, Intent()))
    assert f.severity is UNK
    assert "ROCm 9.9.0-1 is not in the matrix" in f.title


def test_rocm_gfx_names_the_newest_release_listing_the_target(matrix: Matrix) -> None:
    f = _one(check_amd_rocm_gfx(host("nvidia-and-amd"), matrix, Intent()))
    assert (f.severity, f.fix) == (
        W,
        "install ROCm 7.1 (the newest release in the matrix that lists it)",
    )


def test_wheel_list_error_names_the_newest_build_that_covers_the_gpu(matrix: Matrix) -> None:
    f = _one(check_amd_torch_gfx(host("nvidia-and-amd"), matrix, Intent()))
    assert f.severity is E
    assert f.fix.startswith(
        "pip install torch==2.10.0 torchvision==0.25.0 torchaudio==2.10.0"
        " --index-url https://download.pytorch.org/whl/rocm7.1"
    )
    assert "hipErrorNoBinaryForGpu" in f.detail
    assert "issue 684" in f.detail
    assert "kernel driver (amdgpu) releases 6.0.x, 6.1.x, 6.2.x, 6.3.x" in f.detail


def test_release_outside_the_matrix_is_judged_by_its_rocm_series(matrix: Matrix) -> None:
    facts = host("amd-mi300x-8x")
    fw = FrameworkFacts(name="torch", version="2.99.0+rocm6.4", hip="6.4.43484-123")
    f = _one(check_amd_torch_gfx(replace(facts, frameworks=(fw,)), matrix, Intent()))
    assert f.severity is INF
    assert "ROCm 6.4's supported list" in f.title
    fw = FrameworkFacts(name="torch", version="2.99.0+rocm9.1", hip="9.1.1-1")
    f = _one(check_amd_torch_gfx(replace(facts, frameworks=(fw,)), matrix, Intent()))
    assert f.severity is UNK


def test_cpu_torch_on_amd_host_warns_with_rocm_install_line(matrix: Matrix) -> None:
    cpu = FrameworkFacts(name="torch", version="2.5.1+cpu", cpu_only=True)
    facts = replace(host("amd-mi300x-8x"), frameworks=(cpu,))
    f = _one(check_amd_torch_build(facts, matrix, Intent()))
    assert f.severity is W
    assert "--index-url https://download.pytorch.org/whl/rocm" in f.fix
    # The NVIDIA side's CPU-only check leaves the AMD host to this one.
    run = run_checks(facts, matrix)
    assert {(x.code, x.severity) for x in run.findings if x.code == "framework-cpu-only"} == {
        ("framework-cpu-only", NA)
    }


def test_cuda_torch_on_mixed_host_is_info(matrix: Matrix) -> None:
    cuda = FrameworkFacts(name="torch", version="2.5.1+cu124", cuda="12.4", cpu_only=False)
    facts = replace(host("nvidia-and-amd"), frameworks=(cuda,))
    f = _one(check_amd_torch_build(facts, matrix, Intent()))
    assert f.severity is INF
    assert "uses the NVIDIA GPU" in f.title


def test_hsa_override_on_radeon_is_info(matrix: Matrix) -> None:
    facts = _amd(host("amd-rx7900xtx-workstation"), hsa_override_gfx_version="11.0.0")
    assert _one(check_amd_hsa_override(facts, matrix, Intent())).severity is INF


@pytest.mark.parametrize(
    ("name", "version", "severity", "title"),
    [
        ("amd-mi300x-8x", None, INF, "pytorch on the AMD GPU(s) (gfx942): torch 2.10.0+rocm7.1"),
        ("amd-rx7900xtx-workstation", "2.5", INF, "torch 2.5.1+rocm6.2"),
        # AMD GPUs only: no build is an error; next to an NVIDIA GPU it is information.
        ("amd-mi250x-torch-cuda", "1.13", E, "no torch ROCm build of pytorch==1.13 in the"),
        ("nvidia-and-amd", "2.5", INF, "no torch ROCm build of pytorch==2.5 in the matrix"),
    ],
)
def test_amd_intent_names_the_newest_rocm_torch(
    name: str, version: str | None, severity: Severity, title: str, matrix: Matrix
) -> None:
    intent = Intent(framework="pytorch", framework_version=version)
    f = _one(check_amd_intent(host(name), matrix, intent))
    assert f.code == "amd-intent"
    assert f.severity is severity
    assert title in f.title
    if not title.startswith("no "):
        assert f.fix.startswith("pip install torch==")
        assert "--index-url https://download.pytorch.org/whl/rocm" in f.fix


def test_amd_only_host_intent_is_not_the_nvidia_verdict(matrix: Matrix) -> None:
    run = run_checks(host("amd-mi300x-8x"), matrix, Intent(framework="pytorch"))
    codes = {f.code for f in run.findings if f.area == "intent"}
    assert codes == {"amd-intent"}
    assert run.exit_code == 0
    # A mixed host gets both answers: NVIDIA's verdict and the ROCm build.
    mixed = run_checks(host("nvidia-and-amd"), matrix, Intent(framework="pytorch"))
    assert {"intent-verdict", "amd-intent"} <= {f.code for f in mixed.findings}


def test_tensorflow_intent_has_no_rocm_build(matrix: Matrix) -> None:
    f = _one(check_amd_intent(host("amd-mi300x-8x"), matrix, Intent(framework="tensorflow")))
    assert f.severity is NA


def test_old_snapshot_without_device_nodes_is_na(matrix: Matrix) -> None:
    facts = replace(host("amd-mi300x-8x"), amd=replace(host("amd-mi300x-8x").amd, device_nodes=()))
    assert _one(check_amd_device_access(facts, matrix, Intent())).severity is NA
    assert AmdFacts().seen is False


def test_cdi_amd_devices_are_enough_for_containers(matrix: Matrix) -> None:
    from gpudoctor.checks.amd import check_amd_container_runtime

    facts = _amd(host("amd-mi250x-torch-cuda"), cdi_amd_devices=("amd.com/gpu=0",))
    f = _one(check_amd_container_runtime(facts, matrix, Intent()))
    assert f.severity is OK_
    assert "CDI" in f.title
    no_docker = host("amd-rx7900xtx-workstation")
    assert _one(check_amd_container_runtime(no_docker, matrix, Intent())).severity is NA


def test_kernels_for_a_target_amd_does_not_support_warn(matrix: Matrix) -> None:
    """A Radeon VII / MI50 (gfx906) with torch 2.5.1+rocm6.2: the wheel carries gfx906 code,
    ROCm 6.2 no longer lists the target."""
    facts = host("nvidia-and-amd")
    nodes = tuple(
        replace(n, gfx_target="gfx906", gfx_target_version=90006, device_id=None) if n.is_gpu else n
        for n in facts.amd.kfd_nodes
    )
    f = _one(check_amd_torch_gfx(_amd(facts, kfd_nodes=nodes), matrix, Intent()))
    assert f.severity is W
    assert "AMD does not support it with ROCm 6.2" in f.title
    assert not rocm.newest_for_host(matrix, ["gfx906"])  # no release both builds and supports it


def test_uncorrectable_ecc_errors_warn(matrix: Matrix) -> None:
    from gpudoctor.checks.amd import check_amd_ecc

    facts = host("amd-mi300x-8x")
    assert _one(check_amd_ecc(facts, matrix, Intent())).severity is OK_
    cards = (replace(facts.amd.pci_gpus[0], ecc_uncorrectable=3), *facts.amd.pci_gpus[1:])
    f = _one(check_amd_ecc(_amd(facts, pci_gpus=cards), matrix, Intent()))
    assert f.severity is W
    assert "0000:0c:00.0 (3)" in f.title
    radeon = host("amd-rx7900xtx-workstation")
    assert _one(check_amd_ecc(radeon, matrix, Intent())).severity is NA


@pytest.mark.parametrize(
    ("hip", "rocr", "severity"),
    [
        (None, None, OK_),
        ("", None, W),
        ("0,9", None, W),
        ("0,1", "0", OK_),
        (None, "GPU-1a2b", OK_),
    ],
)
def test_visible_devices(
    hip: str | None, rocr: str | None, severity: Severity, matrix: Matrix
) -> None:
    from gpudoctor.checks.amd import check_amd_visible_devices

    facts = _amd(host("amd-mi300x-8x"), hip_visible_devices=hip, rocr_visible_devices=rocr)
    assert _one(check_amd_visible_devices(facts, matrix, Intent())).severity is severity


def test_deep_rocm_torch_that_sees_no_gpu_is_an_error(matrix: Matrix) -> None:
    from gpudoctor.checks.deep import check_cuda_available
    from gpudoctor.facts import DeepFrameworkFacts

    facts = host("amd-rx7900xtx-workstation")
    torch = facts.frameworks[0]
    deep = DeepFrameworkFacts(
        name="torch",
        outcome="ok",
        import_ok=True,
        version=torch.version,
        cuda_available=False,
        device_count=0,
    )
    f = _one(check_cuda_available(replace(facts, deep=(deep,)), matrix, Intent()))
    assert f.code == "framework-cuda-available"
    assert f.severity is E
    assert "(ROCm) sees no GPU" in f.title


def test_a_hip_kernel_error_gets_the_known_cause() -> None:
    from gpudoctor.checks.deep_causes import kernel_cause
    from gpudoctor.facts import DeepFrameworkFacts

    deep = DeepFrameworkFacts(
        name="torch",
        kernel_ok=False,
        kernel_error="RuntimeError: HIP error: invalid device function",
    )
    assert "no code object" in kernel_cause(deep).what


def test_an_igpu_next_to_an_nvidia_gpu_fails_nothing(matrix: Matrix) -> None:
    """A Ryzen's integrated Radeon with no ROCm installed: information, never an error, and
    --framework pytorch still passes on the NVIDIA GPU."""
    run = run_checks(host("nvidia-with-ryzen-igpu"), matrix, Intent(framework="pytorch"))
    assert run.exit_code == 0
    amd = {(f.code, f.severity) for f in run.findings if f.code.startswith("amd-")}
    assert ("amd-intent", INF) in amd
    assert not [f for f in run.findings if f.severity is E]


def test_require_amd_gpus(matrix: Matrix) -> None:
    from gpudoctor.checks.requirements import parse_requirement

    def verdict(name: str, text: str) -> Severity:
        intent = Intent(requirements=(parse_requirement(text),))
        run = run_checks(host(name), matrix, intent)
        return next(f.severity for f in run.findings if f.code == "requirement-amd-gpus")

    assert verdict("amd-mi250x-torch-cuda", "amd_gpus>=8") is OK_  # 4 cards, 2 dies each
    assert verdict("amd-mi250x-torch-cuda", "amd_gpus>=16") is E
    assert verdict("h100-8x-healthy", "amd_gpus>=1") is E
    # sysfs shows the host's GPUs in a container without /dev/kfd: HIP sees none there, and a
    # user who cannot open /dev/kfd gets none either (hipErrorNoDevice)
    assert verdict("amd-container-without-kfd", "amd_gpus>=1") is E
    assert verdict("amd-rx7900xtx-workstation", "amd_gpus>=1") is E
    assert verdict("amd-mi300x-8x", "amd_gpus>=8") is OK_


def test_require_amd_gpus_counts_the_gpus_a_pasted_rocm_smi_lists(matrix: Matrix) -> None:
    """rocm-smi names these two MI300X by device id only: `amd_gpus>=2` said 0 GPUs."""
    from gpudoctor.checks.requirements import parse_requirement
    from gpudoctor.pasted.dispatch import read_report

    path = HOSTS_DIR.parent / "reports" / "rocm-4759-rocm-smi-mi300x.txt"
    facts = read_report(path.read_text(encoding="utf-8"), path.name, matrix.architectures)
    for text, want in (("amd_gpus>=2", OK_), ("amd_gpus>=3", E)):
        run = run_checks(facts, matrix, Intent(requirements=(parse_requirement(text),)))
        found = next(f for f in run.findings if f.code == "requirement-amd-gpus")
        assert found.severity is want, found


def test_unknown_targets_are_unknown(matrix: Matrix) -> None:
    """A GPU known only by a PCI id the matrix lacks: nothing to judge ROCm or torch by."""
    facts = host("amd-rx7900xtx-workstation")
    cards = tuple(replace(c, device_id="0x9999") for c in facts.amd.pci_gpus)
    bare = _amd(facts, kfd_nodes=(), kfd_present=False, pci_gpus=cards, rocm_version="6.3.1")
    assert _one(check_amd_torch_gfx(bare, matrix, Intent())).severity is UNK
    assert _one(check_amd_rocm_gfx(bare, matrix, Intent())).severity is UNK


def test_a_rocm_torch_on_an_nvidia_only_host_is_an_error(matrix: Matrix) -> None:
    """8 H100s and torch+rocm6.2: the wheel can never use them, yet the host passed."""
    import json

    from gpudoctor.facts_json import loads

    data = json.loads((HOSTS_DIR / "h100-8x-healthy.json").read_text(encoding="utf-8"))
    data["frameworks"][0].update(
        version="2.5.1+rocm6.2", cuda=None, hip="6.2.41133", cudnn=None, bundled=[]
    )
    run = run_checks(loads(json.dumps(data)), matrix)
    found = next(f for f in run.findings if f.code == "framework-cpu-only")
    assert found.severity is E
    assert "ROCm build" in found.title
    assert "download.pytorch.org/whl/cu" in found.fix
    assert run.exit_code == 1
    # beside an AMD GPU the ROCm build is the right one for that GPU: not this error
    mixed = run_checks(host("nvidia-and-amd"), matrix).findings
    assert all(f.severity is not E for f in mixed if f.code == "framework-cpu-only")
