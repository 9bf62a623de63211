"""Kernel-log, fabric-manager and NCCL lines of the driver and multi-GPU layers as public threads
posted them: each is named by its own signature with the numbers it states, a message the
driver wraps over three lines is read whole, a near miss is not named, and a line that says why
another line failed makes that line info instead of a second error."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures

Read = Callable[[str], HostFacts]

# (code, the lines as a thread posted them, words the rendered cause or fix must hold, a near miss)
CASES = [
    (
        "nvrm-api-mismatch",
        "[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n"
        "               NVRM: has the version 595.84, but this kernel module has\n"
        "               NVRM: the version 595.80.  Please make sure that this\n"
        "               NVRM: kernel module and all NVIDIA driver components",
        ("user-space driver 595.84 talks to kernel module 595.80",),
        "[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005) exited",
    ),
    (
        "nvrm-fallen-off-bus",
        "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
        "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
        "               NVRM: fallen off the bus and is not responding to commands.",
        ("reach the GPU at 0000:b3:00.0", "Xid 79"),
        "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
        "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
        "               NVRM: been reset.",
    ),
    (
        "nvrm-bar-invalid",
        "[83260.063553] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
        "               NVRM: BAR1 is 0M @ 0x0 (PCI:0000:14:00.0)\n"
        "[83260.063557] nvidia: probe of 0000:14:00.0 failed with error -1",
        ("Above 4G decoding", "pciPassthru.64bitMMIOSizeGB", "pci=realloc"),
        "[    0.912000] pci 0000:14:00.0: BAR 1: assigned [mem 0x38000000000-0x383ffffffff 64bit "
        "pref]",
    ),
    (
        "open-module-datacenter-only",
        "[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
        "[    3.513144] NVRM: To force use of Open nvidia.ko on other GPUs, see the",
        ("NVreg_OpenRmEnableUnsupportedGpus=1", "proprietary kernel module flavour"),
        "[    3.101000] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  525.60.11",
    ),
    (
        "nccl-dmabuf-register-failed",
        "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not "
        "supported",
        ("DMA-BUF (Operation not supported)", "NCCL_DMABUF_ENABLE=0", "nvidia-peermem"),
        "node1:1234:1290 [0] NCCL INFO NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0",
    ),
    (
        "nccl-nvls-failed",
        "node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1 'invalid argument'",
        ("NVLink SHARP", "NCCL_NVLS_ENABLE=0", "State Completed"),
        "node23:12098:12141 [2] NCCL INFO NVLS multicast support is not available on dev 2",
    ),
    (
        "nvrm-reset-required",
        "[373871.354096] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
        "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827",
        ("only a GPU reset clears", "nvidia-smi -r"),
        "[373871.354096] NVRM: nvAssertOkFailedNoLog: Assertion failed: Invalid state "
        "[NV_ERR_INVALID_STATE] (0x00000040) returned from status @ kernel_channel.c:2827",
    ),
    (
        "cuda-devices-unavailable",
        "torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        ("cudaErrorDevicesUnavailable (46)", "NV_ERR_RESET_REQUIRED"),
        "torch.AcceleratorError: CUDA error: out of memory",
    ),
    (
        "cuda-peer-access-unsupported",
        "CUDA error 217 at ggml-cuda.cu:6292: peer access is not supported between these two "
        "devices",
        ("cudaErrorPeerAccessUnsupported (217)", "nvidia-smi topo -p2p r", "NCCL_P2P_DISABLE=1"),
        "CUDA error 704 at ggml-cuda.cu:6292: peer access is already enabled",
    ),
    (
        "cdi-host-device-missing",
        "Error: setting up CDI devices: failed to inject devices: failed to stat CDI host device "
        '"/dev/dri/renderD129": no such file or directory',
        ("(/dev/dri/renderD129)", "nvidia-ctk cdi generate"),
        "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
    ),
    (
        "nccl-ib-qp-failed",
        "[2026-03-13 22:26:02] host-01.example.com:4242 [5] ibvwrap.c:262 NCCL WARN Call to "
        "ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_3:1, curr state INIT, "
        "next state RTR, local GID index 3",
        ("(Connection timed out)", "NCCL_CROSS_NIC=0", "NCCL_IB_GID_INDEX"),
        "host-01:4242 [5] NCCL INFO NET/IB: Dev 3 Port 1 qpn 58 mtu 3 GID 3 (0/A10B0A0AFFFF0000)",
    ),
    (
        "gpu-d3cold-inaccessible",
        "[   87.412759] nvidia 0000:01:00.0: Unable to change power state from D3cold to D0, "
        "device inaccessible",
        ("GPU at 0000:01:00.0 was powered down to D3cold", "0000:01:00.0/d3cold_allowed"),
        "[   87.412759] nvidia 0000:01:00.0: power state changed by ACPI to D0",
    ),
    (
        "nvrm-no-devices-probed",
        "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
        "[ 1843.439670] NVRM: None of the NVIDIA devices were initialized.",
        ("took no GPU", "lspci -k -d 10de:"),
        "[ 1843.439669] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01",
    ),
    (
        "installer-module-load-failed",
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when "
        "this kernel module was built against the wrong or improperly configured kernel sources",
        ("built nvidia but the kernel would not load it", "/var/log/nvidia-installer.log"),
        "-> Kernel module compilation complete.",
    ),
    (
        "modprobe-nvidia-refused",
        "modprobe: ERROR: could not insert 'nvidia': No such device",
        ("refused nvidia (No such device)", "lspci -k -d 10de:"),
        "modprobe: ERROR: could not insert 'i2c_nvidia_gpu': No such device",
    ),
    (
        "secure-boot-rejected",
        "-> Kernel module load error: Required key not available",
        ("Secure Boot is on", "mokutil --import"),
        "modprobe: ERROR: could not insert 'px1800kbd': Key was rejected by service",
    ),
    (
        "nccl-cuda-failure",
        "node1:1234:1234 [0] enqueue.cc:1556 NCCL WARN Cuda failure 209 'no kernel image is "
        "available for execution on the device'",
        ("failed with 'no kernel image is available", "nvidia-nccl"),
        "node1:1234:1234 [0] NCCL INFO Cuda Host Alloc Size 4 pointer 0x7f5a2e200000",
    ),
]


def _line_findings(read: Read, matrix: Matrix, text: str) -> list[Finding]:
    return [f for f in run_checks(read(text + "\n"), matrix).findings if f.code == "report-error"]


def _subjects(read: Read, matrix: Matrix, text: str) -> list[str]:
    try:
        return [f.subject for f in _line_findings(read, matrix, text)]
    except FactsError:  # "no report recognised": not one fact or known line
        return []


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_posted_message_is_named_with_its_numbers(
    read: Read, matrix: Matrix, case: tuple[str, str, tuple[str, ...], str]
) -> None:
    code, text, words, near = case
    known = load_signatures().by_code[code]
    findings = run_checks(read(text + "\n"), matrix).findings
    (error,) = [f for f in findings if f.code == "report-error" and f.subject == code]
    if error.severity is Severity.INFO and known.severity != "info":
        # a finding from the facts the line states predicts it and carries the verdict
        assert any(
            f.code in known.predicted_by and f.severity in (Severity.ERROR, Severity.WARN)
            for f in findings
        ), code
    else:
        assert error.severity is Severity(known.severity or "error")
    for word in words:
        assert word in f"{error.detail} {error.fix}", word
    assert code not in _subjects(read, matrix, near)


def test_the_older_one_line_forms_are_still_named(read: Read, matrix: Matrix) -> None:
    old = (
        "NVRM: API mismatch: the client has the version 390.25, but\n"
        "NVRM: this kernel module has the version 390.12.  Please\n"
        "[   49.261458] NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus.\n"
        "node1:1234:1234 [0] NCCL WARN Cuda failure 'no kernel image is available for execution "
        "on the device'\n"
    )
    subjects = _subjects(read, matrix, old)
    assert subjects == ["nvrm-api-mismatch", "nvrm-fallen-off-bus", "nccl-cuda-failure"]


def test_an_nvls_failure_is_not_left_to_the_generic_nccl_line(read: Read, matrix: Matrix) -> None:
    text = "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error"
    assert _subjects(read, matrix, text) == ["nccl-nvls-failed"]


def test_no_nvswitch_makes_the_fabric_managers_exit_harmless(read: Read, matrix: Matrix) -> None:
    text = (
        "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: Detected Pre-NVL5 system\n"
        "Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: request to query NVSwitch "
        "device information from NVSwitch driver failed with error:WARNING Nothing to do "
        "[NV_WARN_NOTHING_TO_DO]\n"
        "Sep 18 03:19:01 ubuntu2404 systemd[1]: nvidia-fabricmanager.service: Control process "
        "exited, code=exited, status=1/FAILURE"
    )
    lines = {f.subject: f for f in _line_findings(read, matrix, text)}
    assert set(lines) == {"fabric-manager-no-nvswitch", "fabric-manager-service-failed"}
    assert lines["fabric-manager-no-nvswitch"].severity is Severity.INFO
    assert "disable" in lines["fabric-manager-no-nvswitch"].fix
    failed = lines["fabric-manager-service-failed"]
    assert failed.severity is Severity.INFO
    assert "fabric-manager-no-nvswitch" in failed.detail
    # without the line that says why, the service's exit stays an error
    alone = _line_findings(read, matrix, text.splitlines()[-1])
    assert [f.severity for f in alone] == [Severity.ERROR]


def test_a_line_that_names_the_cause_explains_the_generic_line(read: Read, matrix: Matrix) -> None:
    text = (
        "[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
        "[    3.824916] NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x63:0x0:1905)\n"
    )
    lines = {f.subject: f.severity for f in _line_findings(read, matrix, text)}
    assert lines == {
        "open-module-datacenter-only": Severity.ERROR,
        "rm-init-adapter-failed": Severity.INFO,
    }
    nvls = (
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
        "operation cannot be performed in the present state'.\n"
    )
    lines = {f.subject: f.severity for f in _line_findings(read, matrix, nvls)}
    assert lines == {"nccl-unhandled-cuda-error": Severity.INFO, "nccl-nvls-failed": Severity.ERROR}


def test_explained_codes_are_findings_or_signatures() -> None:
    from gpudoctor.checks.catalogue import CATALOGUE

    catalogue = load_signatures()
    for known in catalogue.signatures:
        assert set(known.explains) <= CATALOGUE.keys() | catalogue.by_code.keys(), known.code
        assert known.code not in known.explains, known.code


def test_a_reset_required_gpu_explains_busy_devices_and_torchs_hint_is_not_judged_again(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"
        "Search for `cudaErrorDevicesUnavailable' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
        "group__CUDART__TYPES.html for more information.\n"
        "[373871.354096] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
        "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2827\n"
    )
    lines = {f.subject: f.severity for f in _line_findings(read, matrix, text)}
    assert lines == {
        "cuda-devices-unavailable": Severity.INFO,
        "nvrm-reset-required": Severity.ERROR,
    }
    # the error line itself is what is judged, once, whichever entry names it
    misaligned = (
        "torch.AcceleratorError: CUDA error: misaligned address\n"
        "Search for `cudaErrorMisalignedAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
        "group__CUDART__TYPES.html for more information.\n"
    )
    (error,) = _line_findings(read, matrix, misaligned)
    assert (error.subject, dict(error.evidence)["line"]) == ("cuda-error", "1")


def test_a_pasted_ibstat_port_down_is_judged(read: Read, matrix: Matrix) -> None:
    text = (
        "CA 'rocep216s0f0'\n"
        "\tCA type:\n"
        "\tNumber of ports: 1\n"
        "\tPort 1:\n"
        "\t\tState: Down\n"
        "\t\tPhysical state: Disabled\n"
        "\t\tRate: 100\n"
        "\t\tLink layer: Ethernet\n"
    )
    (ports,) = _ports(read, matrix, text)
    assert ports.severity is Severity.WARN
    assert "rocep216s0f0 port 1" in ports.title
    active = text.replace("State: Down", "State: Active").replace("Disabled", "LinkUp")
    (ports,) = _ports(read, matrix, active)
    assert ports.severity is Severity.OK


def _ports(read: Read, matrix: Matrix, text: str) -> list[Finding]:
    return [f for f in run_checks(read(text), matrix).findings if f.code == "infiniband-ports"]


def test_the_line_that_names_why_no_gpu_was_probed_explains_the_summary(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "[83260.063553] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
        "               NVRM: BAR1 is 0M @ 0x0 (PCI:0000:14:00.0)\n"
        "[83260.106438] NVRM: The NVIDIA probe routine failed for 2 device(s).\n"
    )
    lines = {f.subject: f.severity for f in _line_findings(read, matrix, text)}
    assert lines == {"nvrm-bar-invalid": Severity.ERROR, "nvrm-no-devices-probed": Severity.INFO}
