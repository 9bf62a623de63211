"""The matrix's [[jetpack]] table at work: a Jetson's L4T or JetPack release gives the CUDA its
JetPack ships, the driver checks do not call a Jetson without NVML a broken driver, a build for a
newer CUDA than the JetPack's is named, and JetPack 7 (SBSA-aligned) takes PyPI's wheels. Each
rule has its near miss: a host these rules must leave alone."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.checks.base import Intent
from gpudoctor.checks.jetson import (
    check_jetson_container_l4t,
    check_jetson_wheels,
    image_l4t,
    jetpack_row,
    jetson_driver_fix,
    jetson_release,
    ollama_on_jetson,
    with_jetpack,
)
from gpudoctor.facts import (
    BundledLib,
    FrameworkFacts,
    GpuFacts,
    HostFacts,
    KernelFacts,
    NvmlFacts,
    PciDevice,
    PlatformFacts,
    ReportFacts,
)
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

_WHEELS = (BundledLib("nvidia-cublas-cu12", "12.4.5.8"),)
_DRIVER_CODES = (
    "no-nvidia-gpu",
    "nvidia-module-not-loaded",
    "nvml-library-missing",
    "driver-library-mismatch",
    "nvml-init-failed",
    "driver-version",
)


def _host(
    l4t: str | None = None,
    jetpack: str | None = None,
    *frameworks: FrameworkFacts,
    nvml: NvmlFacts | None = None,
) -> HostFacts:
    return HostFacts(
        platform=PlatformFacts(l4t_release=l4t, jetpack_release=jetpack, machine="aarch64"),
        nvml=nvml or NvmlFacts(status="library_not_found"),
        frameworks=frameworks,
    )


def _one(facts: HostFacts, matrix: Matrix) -> Finding:
    (found,) = check_jetson_wheels(with_jetpack(facts, matrix), matrix, Intent())
    return found


def test_an_l4t_release_gives_its_jetpack_and_cuda(matrix: Matrix) -> None:
    filled = with_jetpack(_host("35.4.1"), matrix)
    assert filled.platform.jetpack_release == "5.1.2"
    assert filled.nvml.cuda_driver_version == "11.4"
    # /etc/nv_tegra_release's "REVISION: 1.0" is the page's "Jetson Linux 35.1"
    assert with_jetpack(_host("35.1.0"), matrix).platform.jetpack_release == "5.0.2"
    assert with_jetpack(_host("38.2.1"), matrix).platform.jetpack_release == "7.0"


def test_a_named_jetpack_gives_its_l4t_and_cuda(matrix: Matrix) -> None:
    filled = with_jetpack(_host(jetpack="4.4"), matrix)
    assert filled.platform.l4t_release == "32.4.3"
    assert filled.nvml.cuda_driver_version == "10.2"


def test_the_jetpack_4_releases_l4t_pages_name(matrix: Matrix) -> None:
    # NVIDIA's L4T release pages: "L4T 32.5.1 is included as part of JetPack 4.5.1" and so on
    pairs = (("32.5.1", "4.5.1"), ("32.5", "4.5"), ("32.7.1", "4.6.1"), ("28.4", "3.3.3"))
    for l4t, jetpack in pairs:
        assert with_jetpack(_host(l4t), matrix).platform.jetpack_release == jetpack
    assert with_jetpack(_host(jetpack="4.4.1"), matrix).platform.l4t_release == "32.4.4"
    assert with_jetpack(_host("32.4.4"), matrix).nvml.cuda_driver_version == "10.2"
    # near misses: a page that names no CUDA gives none, and L4T 32.6.1 (JetPack 4.6, whose
    # NVIDIA page was not read) stays without a JetPack
    assert with_jetpack(_host("32.5.1"), matrix).nvml.cuda_driver_version is None
    assert with_jetpack(_host("32.6.1"), matrix).platform.jetpack_release is None


def test_what_the_table_does_not_hold_stays_unknown(matrix: Matrix) -> None:
    # near misses: a release no NVIDIA page read here gives (JetPack 6.2, L4T 36.4.3), a row
    # without a CUDA (JetPack 5.1.4), a driver CUDA a host shows, and a host that is no Jetson
    for facts in (_host(jetpack="6.2"), _host("36.4.3"), _host("35.6.0"), HostFacts()):
        assert with_jetpack(facts, matrix).nvml.cuda_driver_version is None
    shown = _host("35.4.1", nvml=NvmlFacts(status="ok", cuda_driver_version="12.2"))
    assert with_jetpack(shown, matrix).nvml.cuda_driver_version == "12.2"
    assert jetpack_row(_host("35.4.11"), matrix) is None  # no prefix match: 35.4.11 is not 35.4.1


def test_a_build_for_a_newer_cuda_than_the_jetpack_ships(matrix: Matrix) -> None:
    nv = "2.5.0a0+872d972e41.nv24.08"
    newer = FrameworkFacts("torch", nv, cuda="12.6", cpu_only=False)
    found = _one(_host("35.4.1", None, newer), matrix)
    assert found.severity is Severity.WARN  # JetPack 5: the CUDA upgrade package can run it
    assert "JetPack 5.1.2 ships CUDA 11.4" in found.title
    assert "JetPack 5.1.2 (CUDA 11.4)" in found.fix
    old = FrameworkFacts("torch", "1.10.0", cuda="11.4", cpu_only=False)
    assert _one(_host("32.4.3", None, old), matrix).severity is Severity.ERROR  # JetPack 4: fixed
    # near misses: the JetPack's own CUDA, and an older one
    same = FrameworkFacts("torch", "2.1.0a0+41361538.nv23.06", cuda="11.4", cpu_only=False)
    assert _one(_host("35.4.1", None, same), matrix).severity is Severity.OK
    older = FrameworkFacts("torch", "1.10.0", cuda="10.2", cpu_only=False)
    assert _one(_host("32.4.3", None, older), matrix).severity is Severity.OK


def test_the_fix_names_the_jetpack_and_its_cuda(matrix: Matrix) -> None:
    wheel = FrameworkFacts("torch", "2.5.1", cuda="12.4", cpu_only=False, bundled=_WHEELS)
    found = _one(_host("35.3.1", None, wheel), matrix)
    assert found.severity is Severity.ERROR
    assert "JetPack 5.1.1 (L4T R35.3.1, CUDA 11.4)" in found.fix


def test_jetpack_7_is_sbsa_aligned(matrix: Matrix) -> None:
    wheel = FrameworkFacts("torch", "2.9.0", cuda="13.0", cpu_only=False, bundled=_WHEELS)
    assert _one(_host("38.2.1", None, wheel), matrix).severity is Severity.NA
    # near miss: the same wheels on an L4T the table does not mark SBSA-aligned
    assert _one(_host("36.3.0", None, wheel), matrix).severity is Severity.ERROR


def test_grace_hopper_takes_the_sbsa_wheels(matrix: Matrix) -> None:
    # near miss of every Jetson rule: server Arm with a discrete GPU and the SBSA wheels
    gh200 = HostFacts(
        platform=PlatformFacts(machine="aarch64"),
        kernel=KernelFacts(release="6.5.0-1013-nvidia-64k"),
        nvml=NvmlFacts(
            status="ok",
            driver_version="550.54.15",
            cuda_driver_version="12.4",
            gpus=(GpuFacts(index=0, name="NVIDIA GH200 480GB", compute_capability="9.0"),),
        ),
        frameworks=(
            FrameworkFacts("torch", "2.5.1", cuda="12.4", cpu_only=False, bundled=_WHEELS),
        ),
    )
    assert [f.severity for f in check_jetson_wheels(gh200, matrix, Intent())] == [Severity.NA]
    assert with_jetpack(gh200, matrix) is gh200


def _driver_findings(facts: HostFacts, matrix: Matrix) -> list[Finding]:
    run = run_checks(facts, matrix)
    return [f for f in run.findings if f.code in _DRIVER_CODES]


def test_a_jetson_without_nvml_is_not_a_broken_driver(matrix: Matrix) -> None:
    for status in ("library_not_found", "not_run"):
        found = _driver_findings(_host("35.4.1", nvml=NvmlFacts(status=status)), matrix)
        bad = [(f.code, f.severity) for f in found if f.severity in _ALARMS]
        assert bad == [], status
        (version,) = [f for f in found if f.code == "driver-version"]
        assert version.severity is Severity.OK
        assert "CUDA 11.4" in version.title
    # a Jetson known by its GPU name in a report, NVML absent: no alarm either
    named = HostFacts(
        platform=PlatformFacts(machine="aarch64"),
        nvml=NvmlFacts(
            status="library_not_found", gpus=(GpuFacts(index=0, name="Jetson AGX Orin"),)
        ),
    )
    assert [f.code for f in _driver_findings(named, matrix) if f.severity in _ALARMS] == []


def test_a_discrete_gpu_without_nvml_is_still_an_error(matrix: Matrix) -> None:
    # near miss: an x86 host with a GPU on the PCI bus and no NVML, whatever words name a Jetson
    pci = PciDevice(address="0000:01:00.0", vendor_id="0x10de", device_id="0x2684", kind="gpu")
    host = HostFacts(
        platform=PlatformFacts(machine="x86_64", jetpack_release="5.1.2"),
        kernel=KernelFacts(pci_devices=(pci,), modules_loaded=("nvidia",)),
        nvml=NvmlFacts(status="library_not_found"),
    )
    found = {f.code: f.severity for f in _driver_findings(host, matrix)}
    assert found["nvml-library-missing"] is Severity.ERROR
    # nor a report naming a Jetson next to a discrete GPU it lists
    rtx = GpuFacts(index=0, name="NVIDIA GeForce RTX 4090", compute_capability="8.9")
    listed = HostFacts(
        platform=PlatformFacts(jetpack_release="5.1.2"),
        kernel=KernelFacts(modules_loaded=("nvidia",)),
        nvml=NvmlFacts(status="library_not_found", gpus=(rtx,)),
    )
    found = {f.code: f.severity for f in _driver_findings(listed, matrix)}
    assert found["nvml-library-missing"] is Severity.ERROR


_ALARMS = (Severity.ERROR, Severity.WARN, Severity.UNKNOWN)


def test_a_jetpack_named_on_a_host_with_a_discrete_gpu_is_not_its_own(matrix: Matrix) -> None:
    # near miss: SDK Manager on an x86 workstation flashing JetPack 5.1.2 onto a Jetson
    rtx = GpuFacts(index=0, name="NVIDIA GeForce RTX 4090", compute_capability="8.9")
    for host in (
        HostFacts(platform=PlatformFacts(jetpack_release="5.1.2", machine="x86_64")),
        HostFacts(
            platform=PlatformFacts(jetpack_release="5.1.2"),
            nvml=NvmlFacts(status="not_run", gpus=(rtx,)),
        ),
    ):
        assert with_jetpack(host, matrix) is host
        assert jetson_release(host) is None
    # the Jetson's own GPU name is no discrete GPU
    orin = HostFacts(
        platform=PlatformFacts(jetpack_release="5.1.2"),
        nvml=NvmlFacts(status="not_run", gpus=(GpuFacts(index=0, name="Jetson AGX Orin"),)),
    )
    assert with_jetpack(orin, matrix).nvml.cuda_driver_version == "11.4"


def _image_host(l4t: str | None, *images: str) -> HostFacts:
    return HostFacts(
        platform=PlatformFacts(l4t_release=l4t),
        report=ReportFacts(source="paste.txt", images=images),
    )


def test_a_jetson_image_of_another_l4t_major_is_an_error(matrix: Matrix) -> None:
    (found,) = check_jetson_container_l4t(
        _image_host("36.4.0", "dustynv/l4t-ml:r35.4.1"), matrix, Intent()
    )
    assert found.severity is Severity.ERROR
    assert "R36" in found.fix


def test_a_jetson_image_of_the_hosts_l4t_major_runs(matrix: Matrix) -> None:
    (found,) = check_jetson_container_l4t(
        _image_host("36.4.0", "dustynv/l4t-ml:r36.2.0"), matrix, Intent()
    )
    assert found.severity is Severity.OK
    # R32 images need the same R32 minor too
    (old,) = check_jetson_container_l4t(
        _image_host("32.6.1", "nvcr.io/nvidia/l4t-base:r32.7.1"), matrix, Intent()
    )
    assert old.severity is Severity.ERROR


def test_an_image_without_the_hosts_l4t_is_unknown_and_no_image_is_na(matrix: Matrix) -> None:
    (unknown,) = check_jetson_container_l4t(
        _image_host(None, "dustynv/l4t-ml:r35.4.1"), matrix, Intent()
    )
    assert unknown.severity is Severity.UNKNOWN
    (na,) = check_jetson_container_l4t(_image_host("36.4.0"), matrix, Intent())
    assert na.severity is Severity.NA
    assert image_l4t("nvcr.io/nvidia/pytorch:24.01-py3") is None  # an NGC tag is no L4T


def test_ollama_without_a_gpu_on_a_jetson_needs_its_jetpack_build(matrix: Matrix) -> None:
    code = "ollama-cudasetdevice-failed"
    cause, fix = ollama_on_jetson(code, _host("36.3.0"), matrix) or ("", "")
    assert "generic CUDA runners" in cause
    assert "ollama-linux-arm64-jetpack6" in fix
    _, fix = ollama_on_jetson("ollama-no-gpu", _host("35.4.1"), matrix) or ("", "")
    assert "jetpack5" in fix
    _, fix = ollama_on_jetson("ollama-driver-too-old", _host("32.7.1"), matrix) or ("", "")
    assert "R35 and R36 (JetPack 5 and 6) only" in fix
    # near misses: a discrete GPU's host, JetPack 7 (SBSA-aligned: the generic arm64 build),
    # and another program's line on a Jetson
    assert ollama_on_jetson("ollama-no-gpu", HostFacts(), matrix) is None
    assert ollama_on_jetson("ollama-no-gpu", _host("38.2.1"), matrix) is None
    assert ollama_on_jetson("cuda-library-missing", _host("36.3.0"), matrix) is None


def test_a_gpu_cuda_names_orin_or_xavier_is_a_jetsons(matrix: Matrix) -> None:
    # CUDA names a Jetson's integrated GPU "Orin" or "Xavier" to the programs on it (ollama's
    # name=Orin, torch.cuda.get_device_name)
    for name in ("Orin", "Xavier", "Jetson AGX Orin"):
        facts = HostFacts(nvml=NvmlFacts(status="not_run", gpus=(GpuFacts(index=0, name=name),)))
        assert jetson_release(facts) == "unknown", name
    # near miss: a discrete GPU's name
    a100 = GpuFacts(index=0, name="NVIDIA A100-SXM4-80GB")
    assert jetson_release(HostFacts(nvml=NvmlFacts(status="ok", gpus=(a100,)))) is None


def test_a_line_asking_for_a_newer_driver_on_a_jetson(matrix: Matrix) -> None:
    # the L4T release carries the driver: the build for the JetPack, or the CUDA upgrade package
    fix = jetson_driver_fix("driver-insufficient", _host("35.4.1"), matrix) or ""
    assert "JetPack 5.1.2, CUDA 11.4" in fix
    assert "CUDA upgrade (compat) package" in fix
    fix = jetson_driver_fix("driver-too-old", _host("32.4.3"), matrix) or ""
    assert "before JetPack 5 the CUDA cannot be upgraded" in fix
    orin = HostFacts(nvml=NvmlFacts(status="not_run", gpus=(GpuFacts(index=0, name="Orin"),)))
    assert "cat /etc/nv_tegra_release" in (jetson_driver_fix("ptx-jit-failed", orin, matrix) or "")
    # near misses: a discrete GPU's host, JetPack 7, and a line that asks for no driver
    assert jetson_driver_fix("driver-too-old", HostFacts(), matrix) is None
    assert jetson_driver_fix("driver-too-old", _host("38.2.1"), matrix) is None
    assert jetson_driver_fix("no-kernel-image", _host("35.4.1"), matrix) is None


def test_a_plain_pypi_release_on_a_jetson_is_probably_the_cpu_wheel(matrix: Matrix) -> None:
    # PyPI's aarch64 wheels of these releases carry no CUDA (the matrix's [[wheel]] rows);
    # "tensorflow 2.13" as prose writes it stands for its 2.13.x wheels
    for fw in (FrameworkFacts("tensorflow", "2.13"), FrameworkFacts("torch", "2.3.1")):
        found = _one(_host("32.7.1", None, fw), matrix)
        assert found.severity is Severity.WARN, fw
        assert "probably PyPI's aarch64 build" in found.title
    assert (
        "install-tf-jetson-platform"
        in _one(_host("32.7.1", None, FrameworkFacts("tensorflow", "2.13")), matrix).fix
    )
    # near misses: NVIDIA's Jetson builds (a local tag), a build whose CUDA the report shows,
    # a release whose PyPI aarch64 wheel brings CUDA (torch 2.11: an SBSA build, judged apart)
    for fw in (
        FrameworkFacts("torch", "2.1.0a0+41361538.nv23.06"),
        FrameworkFacts("tensorflow", "2.16.1+nv24.07"),
        FrameworkFacts("torch", "2.3.0", cuda="12.2"),
        FrameworkFacts("torch", "2.11.0"),
    ):
        assert _one(_host("36.3.0", None, fw), matrix).severity is Severity.OK, fw
