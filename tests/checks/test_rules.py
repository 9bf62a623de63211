"""Individual rules on variations of the recorded hosts: unknown vs n/a, isolation of a crashing
check, cuDNN, devices, counts, environment variables, intent verdicts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import Crash, Intent, _run_one, run_checks, select_codes
from gpudoctor.errors import UsageError
from gpudoctor.facts import DeviceNode, FrameworkFacts, HostFacts, ProbeIssue
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.inputs import parse_cuda, parse_framework
from gpudoctor.matrix.model import Matrix
from gpudoctor.wording import gpu_label
from tests.support.hosts import host

E, W, INF, OK_, NA, U = (Severity.ERROR, Severity.WARN, Severity.INFO, Severity.OK, Severity.NA,
                     Severity.UNKNOWN)  # fmt: skip


def findings(facts: HostFacts, matrix: Matrix, code: str, intent: Intent | None = None
             ) -> list[tuple[Severity, str]]:  # fmt: skip
    return [(f.severity, f.subject) for f in run_checks(facts, matrix, intent).findings
            if f.code == code]  # fmt: skip


def with_gpus(facts: HostFacts, **changes: object) -> HostFacts:
    gpus = tuple(replace(g, **changes) for g in facts.nvml.gpus)  # type: ignore[arg-type]
    return replace(facts, nvml=replace(facts.nvml, gpus=gpus))


def test_no_gpu_host_makes_gpu_checks_not_applicable(matrix: Matrix) -> None:
    run = run_checks(host("no-gpu-toolkit-only"), matrix)
    by_code = {f.code: f.severity for f in run.findings}
    assert by_code["no-nvidia-gpu"] is INF
    for code in ("persistence-mode", "mig-mode", "framework-driver-cuda", "device-nodes",
                 "gpu-count", "docker-nvidia-runtime", "nvcc-driver-cuda"):  # fmt: skip
        assert by_code[code] is NA, code
    assert run.exit_code == 0


def test_none_with_probe_issue_is_unknown_without_is_na(matrix: Matrix) -> None:
    facts = with_gpus(host("h100-8x-healthy"), persistence_mode=None)
    assert findings(facts, matrix, "persistence-mode") == [(NA, "GPU 0-7")]
    issue = ProbeIssue("nvml", "gpus[0].persistence_mode", "nvml-no-permission", "no permission")
    facts = replace(facts, issues=(issue,))
    assert findings(facts, matrix, "persistence-mode") == [(U, "GPU 0-7")]
    assert run_checks(facts, matrix, strict=True).exit_code == 1
    assert run_checks(facts, matrix).exit_code == 0


def test_a_crashing_check_becomes_an_unknown_finding(matrix: Matrix) -> None:
    def broken(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
        raise KeyError("nope")

    crashes: list[Crash] = []
    (f,) = _run_one("gpu", broken, host("h100-8x-healthy"), matrix, Intent(), crashes=crashes)
    assert (f.code, f.severity, f.area, f.subject) == ("check-crashed", U, "gpu", "broken")
    assert "KeyError" not in f.title  # the class name only under --debug
    assert [c.error for c in crashes] == ["KeyError: 'nope'"]


def test_gpu_label() -> None:
    assert gpu_label([3]) == "GPU 3"
    assert gpu_label([2, 0, 1]) == "GPU 0-2"
    assert gpu_label([0, 2, 5]) == "GPU 0, 2, 5"


def test_torch_cudnn_other_major_is_error_older_minor_warn(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    (torch,) = facts.frameworks
    wrong = replace(facts, frameworks=(replace(torch, cudnn="8.9.7.29"),))
    older = replace(facts, frameworks=(replace(torch, cudnn="9.0.0.312"),))
    assert findings(wrong, matrix, "framework-cudnn") == [(E, "torch")]
    assert findings(older, matrix, "framework-cudnn") == [(W, "torch")]
    assert findings(facts, matrix, "framework-cudnn") == [(OK_, "torch")]


def test_framework_not_in_matrix_is_unknown(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    odd = FrameworkFacts(name="torch", version="1.3.1+cu101", cuda="10.1", cpu_only=False)
    facts = replace(facts, frameworks=(odd,))  # the matrix has no torch 1.3 row
    assert findings(facts, matrix, "framework-arch") == [(U, "torch")]
    assert findings(facts, matrix, "framework-cpu-only") == [(OK_, "torch")]


def _old_torch(cc: str, version: str, cuda: str) -> HostFacts:
    facts = with_gpus(host("h100-8x-healthy"), compute_capability=cc)
    old = FrameworkFacts(name="torch", version=version, cuda=cuda, cpu_only=False)
    return replace(facts, frameworks=(old,))


def _intent_severity(facts: HostFacts, matrix: Matrix, version: str, cuda: str) -> Severity:
    intent = Intent(framework="pytorch", framework_version=version, cuda=cuda)
    (verdict,) = [f for f in run_checks(facts, matrix, intent).findings
                  if f.code == "intent-verdict"]  # fmt: skip
    return verdict.severity


@pytest.mark.parametrize(
    ("case", "arch", "runs"),
    [
        (("9.0", "1.4.0+cu101", "10.1"), E, False),  # CUDA 10.1 predates Hopper
        (("8.0", "1.7.1+cu110", "11.0"), INF, True),  # CUDA 11.0 targets 8.0 itself
        (("8.6", "1.7.1+cu110", "11.0"), INF, True),  # its 8.0 cubins run on 8.6 (same major)
        (("8.6", "1.7.1+cu101", "10.1"), E, False),  # no Ampere architecture in CUDA 10.1
    ],
)
def test_a_build_without_an_arch_list_gets_one_answer_from_check_and_intent(
    matrix: Matrix, case: tuple[str, str, str], arch: Severity, runs: bool
) -> None:
    """Builds the matrix lists without an arch list (torch 1.0-1.7) are judged by the CUDA
    toolkit they were built with, by framework-arch and by `--framework` alike."""
    cc, version, cuda = case
    facts = _old_torch(cc, version, cuda)
    assert {sev for sev, _ in findings(facts, matrix, "framework-arch")} == {arch}
    intent = _intent_severity(facts, matrix, version[:3], cuda)
    assert (intent in (OK_, INF)) is runs


def test_unknown_torch_build_flavour(matrix: Matrix) -> None:
    facts = replace(host("h100-8x-healthy"), frameworks=(
        FrameworkFacts(name="torch", version="2.5.1", cuda=None, cpu_only=None),))  # fmt: skip
    assert findings(facts, matrix, "framework-cpu-only") == [(U, "torch")]
    assert findings(facts, matrix, "framework-driver-cuda") == [(U, "torch")]


def test_device_nodes(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    k = facts.kernel
    missing = replace(facts, kernel=replace(k, device_nodes=tuple(
        n for n in k.device_nodes if n.path != "/dev/nvidia3")))  # fmt: skip
    assert findings(missing, matrix, "device-nodes") == [(E, "")]
    denied = replace(
        facts,
        kernel=replace(
            k,
            device_nodes=tuple(
                replace(n, writable=False) if n.path == "/dev/nvidiactl" else n
                for n in k.device_nodes
            ),
        ),
    )
    assert findings(denied, matrix, "device-nodes") == [(E, "")]
    no_uvm = replace(facts, kernel=replace(k, device_nodes=tuple(
        n for n in k.device_nodes if not n.path.startswith("/dev/nvidia-uvm"))))  # fmt: skip
    assert findings(no_uvm, matrix, "device-nodes") == [(W, "")]
    # a GPU missing from NVML but bound on PCI and still with a node: counts disagree
    nvml = replace(facts.nvml, gpus=facts.nvml.gpus[:7], device_count=7)
    assert findings(replace(facts, nvml=nvml), matrix, "gpu-count") == [(W, "")]


def test_nvml_permission_and_bindings(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    denied = replace(facts, nvml=replace(facts.nvml, status="no_permission", gpus=()))
    assert findings(denied, matrix, "nvml-init-failed") == [(E, "")]
    odd = replace(facts, nvml=replace(facts.nvml, status="unknown", error="boom", gpus=()))
    assert findings(odd, matrix, "nvml-init-failed") == [(U, "")]
    shadow = replace(facts, nvml=replace(facts.nvml, bindings_shadowed=True))
    assert findings(shadow, matrix, "nvml-bindings") == [(W, "")]


def test_nouveau_loaded_but_not_bound_is_a_warning(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    k = replace(facts.kernel, modules_loaded=(*facts.kernel.modules_loaded, "nouveau"))
    assert findings(replace(facts, kernel=k), matrix, "nouveau-loaded") == [(W, "")]


def test_environment_variables(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    hidden = replace(facts, platform=replace(facts.platform, cuda_visible_devices="-1"))
    assert findings(hidden, matrix, "cuda-visible-devices") == [(W, "")]
    inside = replace(
        facts,
        platform=replace(
            facts.platform,
            container="docker",
            nvidia_visible_devices="all",
            nvidia_driver_capabilities="utility",
        ),
    )
    assert findings(inside, matrix, "container-gpus") == [(W, "")]
    fine = replace(inside, platform=replace(inside.platform, nvidia_driver_capabilities="all"))
    assert findings(fine, matrix, "container-gpus") == [(OK_, "")]


def test_translated_iommu_on_multi_gpu_bare_metal_is_a_note(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    iommu = replace(facts.platform.iommu, default_domain="DMA-FQ")
    facts = replace(facts, platform=replace(facts.platform, iommu=iommu))
    assert findings(facts, matrix, "iommu") == [(INF, "")]


def test_mig_on_without_instances_warns(matrix: Matrix) -> None:
    facts = with_gpus(host("h100-8x-healthy"), mig_mode_current=True, mig_mode_pending=True)
    assert findings(facts, matrix, "mig-mode") == [(W, "GPU 0-7")]


def test_ecc_pending_and_power_cap(matrix: Matrix) -> None:
    facts = with_gpus(host("h100-8x-healthy"), ecc_mode_pending=False,
                      clock_event_reasons=("sw_power_cap",))  # fmt: skip
    assert findings(facts, matrix, "ecc-mode-pending") == [(W, "GPU 0-7")]
    assert findings(facts, matrix, "clock-throttling") == [(INF, "GPU 0-7")]


def test_toolkit_without_runtime_registration(matrix: Matrix) -> None:
    facts = host("docker-without-nvidia-runtime")
    rt = replace(facts.container_runtime, toolkit_tools=("nvidia-ctk",))
    (f,) = [f for f in run_checks(replace(facts, container_runtime=rt), matrix).findings
            if f.code == "docker-nvidia-runtime"]  # fmt: skip
    assert f.severity is E
    assert f.fix.startswith("sudo nvidia-ctk runtime configure --runtime=docker")


def test_driver_too_old_names_minimum_and_an_older_wheel(matrix: Matrix) -> None:
    (f,) = [f for f in run_checks(host("driver-too-old"), matrix).findings
            if f.code == "framework-driver-cuda"]  # fmt: skip
    assert "upgrade the driver to >= 525.60.13" in f.fix  # the 12.x minor-version floor
    assert "550.54.14 for native CUDA 12.4" in f.detail
    assert (
        "the installed pytorch 2.5 in a variant that runs here: pip install torch==2.5.1 "
        "torchvision==0.20.1 torchaudio==2.5.1 --index-url https://download.pytorch.org/whl/cu118"
    ) in f.fix
    assert dict(f.evidence)["required_driver"] == "550.54.14"


def test_blackwell_fix_names_a_build_with_its_arch(matrix: Matrix) -> None:
    (f,) = [f for f in run_checks(host("b200-torch25-no-sm100"), matrix).findings
            if f.code == "framework-arch"]  # fmt: skip
    assert "cu128" in f.fix
    assert "no kernel image" in f.detail


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("pytorch==2.5", ("pytorch", "2.5")), ("torch", ("pytorch", None)),
     ("tf=2.15", ("tensorflow", "2.15")), ("TensorFlow==2.15.1", ("tensorflow", "2.15.1"))],
)  # fmt: skip
def test_parse_framework(text: str, parsed: tuple[str, str | None]) -> None:
    assert parse_framework(text) == parsed


@pytest.mark.parametrize("text", ["pytorh", "jax==0.4", "pytorch==two", "pytorch>=2"])
def test_parse_framework_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_framework(text)


def test_parse_cuda() -> None:
    assert parse_cuda("12.1") == "12.1"
    with pytest.raises(UsageError, match="'twelve' is not a CUDA version"):
        parse_cuda("twelve")


def intent(framework: str | None, version: str | None = None, cuda: str | None = None) -> Intent:
    return Intent(framework=framework, framework_version=version, cuda=cuda)


def test_intent_verdicts(matrix: Matrix) -> None:
    h100, b200 = host("h100-8x-healthy"), host("b200-torch25-no-sm100")
    assert findings(h100, matrix, "intent-verdict", intent("pytorch", "2.5", "12.1")) == [(OK_, "")]
    assert findings(b200, matrix, "intent-verdict", intent("pytorch", "2.5")) == [(E, "")]
    assert findings(b200, matrix, "intent-newest-row", intent("pytorch", "2.5")) == [(INF, "")]
    # driver 550 runs CUDA 12.6 only by minor-version compatibility
    assert findings(h100, matrix, "intent-verdict", intent("pytorch", "2.6", "12.6")) == [(INF, "")]
    assert findings(h100, matrix, "intent-verdict", intent(None, None, "13.0")) == [(E, "")]
    assert findings(h100, matrix, "intent-verdict", intent("pytorch", "9.9")) == [(E, "")]
    assert findings(h100, matrix, "intent-verdict", intent("tensorflow", "2.15")) == [(OK_, "")]
    none = host("no-gpu-toolkit-only")
    assert findings(none, matrix, "intent-verdict", intent("pytorch")) == [(E, "")]
    assert findings(none, matrix, "intent-newest-row", intent("pytorch")) == [(NA, "")]
    old = host("driver-too-old")
    assert findings(old, matrix, "intent-newest-row", intent("pytorch")) == [
        (INF, "")
    ]  # cu118 by minor-version


def test_only_and_skip(matrix: Matrix) -> None:
    facts = host("thermal-throttling")
    only = run_checks(facts, matrix, only=select_codes("--only", ["clock-throttling"]))
    assert {f.code for f in only.findings} == {"clock-throttling"}
    skip = run_checks(facts, matrix, skip=select_codes("--skip", ["persistence-mode", ""]))
    assert "persistence-mode" not in {f.code for f in skip.findings}
    with pytest.raises(UsageError, match="--only: unknown check code 'clock'"):
        select_codes("--only", ["clock"])


def test_wsl_judges_the_driver_by_its_own_cuda_version(matrix: Matrix) -> None:
    facts = host("wsl2")
    (torch,) = facts.frameworks
    newer = replace(facts, frameworks=(replace(torch, version="2.9.1+cu130", cuda="13.0"),))
    assert findings(newer, matrix, "framework-driver-cuda") == [(E, "torch")]
    nodes = (DeviceNode("/dev/dxg", True, True),)
    facts = replace(facts, kernel=replace(facts.kernel, device_nodes=nodes))
    assert findings(facts, matrix, "device-nodes") == [(NA, "")]


def test_intent_verdict_names_gpus_failing_alike_once(matrix: Matrix) -> None:
    intent = Intent(framework="pytorch", framework_version="2.5", cuda="12.4")
    run = run_checks(host("b200-torch25-no-sm100"), matrix, intent)
    (verdict,) = [f for f in run.findings if f.code == "intent-verdict"]
    assert verdict.severity is Severity.ERROR
    assert verdict.detail.startswith("GPU 0-7: no kernels for 10.0")
    assert verdict.detail.count("no kernels for 10.0") == 1


def test_fixes_rank_every_existing_row_by_one_rule_and_say_what_was_not_read(
    matrix: Matrix,
) -> None:
    # Another release: the newest build with sm_100 kernels the 570 driver runs, whatever of it
    # was read from the wheel, the same one intent-newest-row names.
    b200 = run_checks(host("b200-torch25-no-sm100"), matrix, Intent(framework="pytorch"))
    (arch,) = [f for f in b200.findings if f.code == "framework-arch"]
    (newest,) = [f for f in b200.findings if f.code == "intent-newest-row"]
    assert arch.fix.endswith(
        "torch==2.11.0 torchvision==0.26.0 torchaudio==2.11.0 "
        "--index-url https://download.pytorch.org/whl/cu128 "
        "(cuDNN pin, arch list not read from the wheel)"
    )
    assert "pytorch-2.11.0-cu128-" in newest.detail
    # With 2.11's variants unsettled (no primary source says they exist), 2.10 is next.
    unsettled = replace(
        matrix,
        pytorch=tuple(
            replace(r, variants=tuple(replace(v, verified=False, exists="") for v in r.variants))
            if r.version.startswith("2.11.")
            else r
            for r in matrix.pytorch
        ),
    )
    (arch,) = [
        f for f in run_checks(host("b200-torch25-no-sm100"), unsettled).findings
        if f.code == "framework-arch"
    ]  # fmt: skip
    assert arch.fix.endswith(
        "torch==2.10.0 torchvision==0.25.0 torchaudio==2.10.0 "
        "--index-url https://download.pytorch.org/whl/cu128"
    )
    # At most two builds, labelled: the installed release first (the smaller change), then
    # the newest that runs; each says which of its facts were not read from the wheel.
    (drv,) = [
        f for f in run_checks(host("driver-too-old"), matrix).findings
        if f.code == "framework-driver-cuda"
    ]  # fmt: skip
    installed, newest_part = drv.fix.split("; the newest build that runs here: ")
    assert "the installed pytorch 2.5 in a variant that runs here: " in installed
    assert installed.endswith("whl/cu118 (cuDNN pin, arch list not read from the wheel)")
    assert newest_part.startswith("pip install torch==2.7.1 ")
    assert drv.fix.count("pip install") == 2


def _module_not_loaded(facts: HostFacts, release: str, dkms: tuple[str, ...] | None) -> HostFacts:
    kernel = replace(
        facts.kernel,
        release=release,
        nvidia_module_version=None,
        modules_loaded=("nvidia_drm",),
        nvidia_dkms_kernels=dkms,
    )
    return replace(facts, kernel=kernel, nvml=replace(facts.nvml, status="driver_not_loaded"))


@pytest.mark.parametrize(
    ("dkms", "detail_has", "fix_has"),
    [
        # the module built for the old kernel only: the new kernel's build is what is missing
        (
            ("6.5.0-14-generic",),
            "for kernel 6.5.0-14-generic but not for the running kernel 6.8.0-31-generic",
            "dkms autoinstall -k 6.8.0-31-generic",
        ),
        # built for the running kernel: building again is no fix, the load refusal is
        (("6.8.0-31-generic",), "so it is built but did not load", "dmesg"),
        # no DKMS tree: the generic advice, on the running kernel
        (None, "does not exist", "reinstall the driver for kernel 6.8.0-31-generic"),
    ],
)
def test_module_not_loaded_says_which_kernels_dkms_built_for(
    matrix: Matrix, dkms: tuple[str, ...] | None, detail_has: str, fix_has: str
) -> None:
    facts = _module_not_loaded(host("h100-8x-healthy"), "6.8.0-31-generic", dkms)
    [hit] = [f for f in run_checks(facts, matrix).findings if f.code == "nvidia-module-not-loaded"]
    assert hit.severity is E
    assert detail_has in hit.detail
    assert fix_has in hit.fix
