"""Every recorded host: its JSON is what make_hosts.py builds, it is judged without a crash, the
findings that define that kind of host are there, and the text and JSON reports match golden."""

from __future__ import annotations

import json

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.report.json_report import render_json
from gpudoctor.report.text import render_text
from tests.support.golden import update_golden
from tests.support.hosts import GOLDEN_DIR, HOST_NAMES, HOSTS_DIR, host, make_hosts_module

E, W, INF, OK_, NA = Severity.ERROR, Severity.WARN, Severity.INFO, Severity.OK, Severity.NA

# The findings that make each host what it is: (code, severity, subject or "").
EXPECTED: dict[str, set[tuple[str, Severity, str]]] = {
    "h100-8x-healthy": {("driver-version", OK_, ""), ("framework-driver-cuda", OK_, "torch"),
                        ("framework-arch", OK_, "torch on GPU 0-7")},
    "h100-8x-driver-560": {("framework-driver-cuda", OK_, "torch")},
    "a100-mig-pending": {("mig-mode", INF, "GPU 0"), ("mig-mode-pending", W, "GPU 1"),
                         ("framework-cudnn", E, "tensorflow"), ("framework-cudnn", OK_, "torch")},
    "driver-too-old": {("framework-driver-cuda", E, "torch"),
                       ("nvcc-driver-cuda", W, "/usr/local/cuda-12.4")},
    "minor-version-compat": {("framework-driver-cuda", INF, "torch")},
    "b200-torch25-no-sm100": {("framework-arch", E, "torch on GPU 0-7")},
    "rtx5090-torch26": {("framework-arch", E, "torch on GPU 0")},
    "cpu-torch-on-gpu": {("framework-cpu-only", E, "torch")},
    "pci-no-driver": {("gpu-without-driver", E, ""), ("nvml-library-missing", E, "")},
    "nouveau-bound": {("nouveau-loaded", E, ""), ("nvidia-module-not-loaded", NA, "")},
    "driver-library-mismatch": {("driver-library-mismatch", E, "")},
    "kvm-host-vfio-iommu-off": {("iommu", E, ""), ("nvml-library-missing", NA, "")},
    "vm-passthrough-guest": {("gpu-virtualization", INF, "GPU 0"), ("virtualization", INF, ""),
                             ("vgpu-license", NA, "GPU 0"), ("vgpu-release", NA, "")},
    "vgpu-guest": {("gpu-virtualization", INF, "GPU 0"), ("mig-mode", NA, "GPU 0"),
                   ("vgpu-license", OK_, "GPU 0"), ("vgpu-license-client", OK_, ""),
                   ("vgpu-release", INF, "")},
    "vgpu-guest-unlicensed": {("vgpu-license", E, "GPU 0"), ("vgpu-license-client", W, ""),
                              ("vgpu-release", OK_, "")},
    "vgpu-guest-expired": {("vgpu-license", W, "GPU 0"), ("vgpu-release", OK_, "")},
    "vgpu-guest-host-older": {("vgpu-release", E, ""), ("vgpu-license", OK_, "GPU 0")},
    "docker-systemd-no-dev-char": {("dev-char-links", E, ""), ("cgroup-v2-toolkit", OK_, "")},
    "cdi-spec-stale": {("cdi-spec-current", E, "/etc/cdi/nvidia.yaml"),
                       ("dev-char-links", NA, "")},
    "cgroup-v2-old-toolkit": {("cgroup-v2-toolkit", E, ""), ("dev-char-links", NA, "")},
    "pcie-degraded": {("pcie-link-width", W, "GPU 1"), ("pcie-link-width", OK_, "GPU 0"),
                      ("pcie-link-gen", INF, "GPU 0-1")},
    "memory-repair-pending": {("memory-repair-pending", W, "GPU 0"),
                              ("row-remap-failure", E, "GPU 1"), ("ecc-errors", W, "GPU 0")},
    "docker-without-nvidia-runtime": {("docker-nvidia-runtime", E, ""),
                                      ("container-toolkit", W, "")},
    "no-gpu-toolkit-only": {("no-nvidia-gpu", INF, ""), ("nvcc-driver-cuda", NA,
                                                       "/usr/local/cuda-13.0")},
    "wsl2": {("wsl", INF, ""), ("framework-driver-cuda", OK_, "torch"),
             ("persistence-mode", NA, "GPU 0")},
    "thermal-throttling": {("clock-throttling", W, "GPU 0"), ("clock-throttling", W, "GPU 1"),
                           ("clock-throttling", OK_, "GPU 2-3"),
                           ("persistence-mode", W, "GPU 0-3")},
    "container-without-gpus": {("container-gpus", E, ""), ("nvml-library-missing", E, "")},
    "gpu-lost": {("gpu-lost", E, "GPU 5")},
    "gh200-torch-cpu-wheel": {("framework-cpu-only", E, "torch"), ("cpu-memory", OK_, "")},
    "jetson-orin-sbsa-wheel": {("jetson-wheel", E, "torch"), ("no-nvidia-gpu", INF, ""),
                               ("driver-version", OK_, ""), ("nvml-library-missing", NA, "")},
    "dgx-spark": {("framework-cpu-only", OK_, "torch"), ("framework-driver-cuda", OK_, "torch"),
                  ("framework-arch", OK_, "torch on GPU 0")},
    "hgx-h100-healthy": {("nvlink-state", OK_, "GPU 0-7"), ("nvlink-errors", OK_, "GPU 0-7"),
                         ("fabric-manager", OK_, "GPU 0-7"), ("p2p-topology", OK_, "GPU 0-7"),
                         ("pcie-acs", OK_, ""), ("gpudirect-rdma", OK_, ""),
                         ("infiniband-ports", OK_, ""), ("shm-size", OK_, ""),
                         ("memlock-limit", OK_, ""), ("nccl-env", OK_, ""),
                         ("nccl-library", OK_, ""), ("xid-history", OK_, ""),
                         ("gpu-iommu-groups", OK_, ""), ("gpu-locality", OK_, "GPU 0-3"),
                         ("gpu-locality", OK_, "GPU 4-7"), ("precision-modes", OK_, "GPU 0-7")},
    "hgx-h100-fabric-manager-down": {("fabric-manager", E, "GPU 0-7"),
                                     ("xid-history", E, "XID 79"), ("xid-history", W, "XID 13"),
                                     ("nvlink-state", OK_, "GPU 0-7")},
    "hgx-h100-link-degraded": {("nvlink-state", W, "GPU 3"), ("nvlink-state", W, "GPU 0-7"),
                               ("nvlink-errors", W, "GPU 5"), ("infiniband-ports", W, ""),
                               ("nccl-env", W, "NCCL_P2P_DISABLE"),
                               ("nccl-env", E, "NCCL_SOCKET_IFNAME"),
                               ("fabric-manager", OK_, "GPU 0-7")},
    "pcie-4x-acs-on": {("pcie-acs", W, ""), ("p2p-topology", W, "GPU 0-3"),
                       ("gpu-iommu-groups", W, ""), ("shm-size", W, ""),
                       ("nvlink-state", NA, ""), ("fabric-manager", NA, ""),
                       ("memlock-limit", NA, ""), ("xid-history", NA, "")},
    "a100-8x-r535": {("framework-driver-cuda", OK_, "torch"),
                     ("framework-arch", OK_, "torch on GPU 0-7")},
    "pascal-geforce-r535": {("framework-arch", OK_, "torch on GPU 0")},
    "p100-r470": {("framework-driver-cuda", INF, "torch")},  # cu117 on R470: minor-version
    "v100-r550": {("framework-arch", OK_, "torch on GPU 0-7")},
    "rtx5090-r570-86": {("framework-driver-cuda", NA, "")},
    "h100-r580": {("framework-driver-cuda", OK_, "torch")},
    "cudnn-shadowed": {("library-shadowing", E, "torch")},
    "amd-mi300x-8x": {("amd-driver", OK_, ""), ("amd-device-access", OK_, ""),
                      ("amd-rocm-gfx", OK_, ""), ("amd-torch-gfx", INF, "torch"),
                      ("amd-torch-build", OK_, "torch"), ("amd-library-clash", OK_, ""),
                      ("amd-hsa-override", OK_, ""), ("no-nvidia-gpu", INF, ""),
                      ("amd-container-runtime", OK_, "")},
    "amd-mi250x-torch-cuda": {("amd-torch-build", E, "torch"), ("amd-hsa-override", W, ""),
                              ("amd-container-runtime", INF, ""),
                              ("amd-driver", OK_, ""), ("amd-rocm-gfx", OK_, "")},
    "amd-rx7900xtx-workstation": {("amd-device-access", E, ""), ("amd-library-clash", W, ""),
                                  ("amd-torch-gfx", OK_, "torch"), ("amd-rocm-gfx", NA, "")},
    "amd-container-without-kfd": {("amd-device-access", E, ""), ("amd-driver", OK_, "")},
    "nvidia-and-amd": {("amd-torch-gfx", E, "torch"), ("amd-rocm-gfx", W, ""),
                       ("driver-version", OK_, ""), ("framework-driver-cuda", NA, "torch"),
                       ("amd-device-access", OK_, "")},
    "nvidia-with-ryzen-igpu": {("amd-device-access", INF, ""), ("amd-torch-build", INF, "torch"),
                               ("amd-container-runtime", NA, ""), ("driver-version", OK_, "")},
}  # fmt: skip
PASSING = ("h100-8x-healthy", "h100-8x-driver-560", "minor-version-compat",
           "vm-passthrough-guest", "vgpu-guest", "vgpu-guest-expired", "pcie-degraded",
           "no-gpu-toolkit-only", "wsl2",
           "thermal-throttling", "hgx-h100-healthy", "pcie-4x-acs-on", "a100-8x-r535",
           "pascal-geforce-r535", "p100-r470", "v100-r550", "rtx5090-r570-86",
           "h100-r580", "dgx-spark", "amd-mi300x-8x", "nvidia-with-ryzen-igpu")  # fmt: skip
EXIT = dict.fromkeys(EXPECTED, 1) | dict.fromkeys(PASSING, 0)


def test_host_json_files_are_what_make_hosts_builds() -> None:
    built = make_hosts_module().render_all()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in HOSTS_DIR.glob("*.json")}
    assert len(built) >= 15
    assert built == on_disk, "stale fixtures: run `python tests/data/hosts/make_hosts.py`"


def test_every_host_has_expectations() -> None:
    assert set(HOST_NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", HOST_NAMES)
def test_host_findings(name: str, matrix: Matrix) -> None:
    run = run_checks(host(name), matrix)
    got = {(f.code, f.severity, f.subject) for f in run.findings}
    assert EXPECTED[name] <= got, sorted(EXPECTED[name] - got)
    assert all(f.code in CATALOGUE for f in run.findings)
    assert not [f for f in run.findings if f.code == "check-crashed"]
    assert run.exit_code == EXIT[name]


# The hosts whose text reports are kept as goldens too: one of each layout (no GPU and the
# skipped list; every area healthy; an error with its fix; multi-GPU problems; an AMD host and
# its skipped NVIDIA list; both vendors in one host). The JSON golden
# of every host holds the same findings, so the text of the others would only repeat them.
TEXT_GOLDEN_HOSTS = (
    "no-gpu-toolkit-only",
    "h100-8x-healthy",
    "driver-too-old",
    "hgx-h100-fabric-manager-down",
    "amd-mi250x-torch-cuda",
    "nvidia-and-amd",
)


def _golden_files(name: str) -> list[str]:
    files = [f"{name}.json"]
    if name in TEXT_GOLDEN_HOSTS:
        files += [f"{name}.txt", f"{name}.verbose.txt"]
    return files


def test_golden_folder_holds_exactly_the_goldens() -> None:
    expected = {file for name in HOST_NAMES for file in _golden_files(name)}
    assert set(TEXT_GOLDEN_HOSTS) <= set(HOST_NAMES)
    assert {p.name for p in GOLDEN_DIR.iterdir()} == expected


@pytest.mark.parametrize("name", HOST_NAMES)
def test_golden_reports(name: str, golden_matrix: Matrix) -> None:
    """Findings and areas only, judged against the frozen golden matrix: a matrix edit or a new
    fact in the snapshot schema does not rewrite them (the facts are tests/data/hosts)."""
    facts = host(name)
    run = run_checks(facts, golden_matrix)
    envelope = json.loads(render_json(run, facts, Intent()))
    envelope["tool_version"] = "<tool_version>"  # the only volatile value: fixtures fix the rest
    del envelope["facts"]  # the snapshot itself: tests/data/hosts/NAME.json
    rendered = {f"{name}.json": json.dumps(envelope, indent=2, ensure_ascii=False) + "\n"}
    if name in TEXT_GOLDEN_HOSTS:
        rendered[f"{name}.txt"] = render_text(run, verbose=False, colour=False)
        rendered[f"{name}.verbose.txt"] = render_text(run, verbose=True, colour=False)
    for file, content in rendered.items():
        path = GOLDEN_DIR / file
        if update_golden():
            path.write_text(content, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == content, (
            f"{file} differs; GPUDOCTOR_UPDATE_GOLDEN=1 rewrites it (review the diff)"
        )


def test_every_catalogued_code_is_reached_by_some_host_or_unit_test(matrix: Matrix) -> None:
    """Codes no fixture produces must be exercised by name in a unit test module."""
    seen = {f.code for name in HOST_NAMES for f in run_checks(host(name), matrix).findings}
    unit_tests = "".join(p.read_text() for p in HOSTS_DIR.parents[1].glob("checks/test_*.py"))
    missing = [c for c in CATALOGUE if c not in seen and f'"{c}"' not in unit_tests]
    assert not missing


@pytest.mark.parametrize("name", HOST_NAMES)
def test_a_fix_command_ends_before_any_note_about_its_row(name: str, matrix: Matrix) -> None:
    """Flags (`--force-reinstall`) belong inside the pip command; a "(… verified = false)" note
    about the matrix row comes last, so the command can be copied as it stands."""
    note = "(its matrix row is marked verified = false)"
    for f in run_checks(host(name), matrix).findings:
        if note in f.fix:
            assert f.fix.rstrip().endswith(note), f.fix
