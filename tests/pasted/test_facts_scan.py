"""Facts read from any line of a paste (pasted/facts_scan.py) and from known log lines
(pasted/errors.py, matrices/signatures.toml): what people paste besides the recognised blocks.
Each shape has a positive case and the nearby text that must not be read as a fact."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.pasted import facts_scan
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.pasted.scan import FACTS_HEAD

Read = Callable[[str], HostFacts]


def _codes(facts: HostFacts) -> list[str]:
    assert facts.report is not None
    return [e.code for e in facts.report.errors]


def test_prose_environment_list(read: Read) -> None:
    facts = read(
        "Environment:\n"
        "- Driver: NVIDIA 550.54.15, CUDA 12.4\n"
        "- 4x A100 80GB\n"
        "- Ubuntu 22.04, kernel 5.15.0-105-generic\n"
        "- vLLM 0.4.2, torch 2.3.0+cu121\n"
    )
    assert facts.nvml.driver_version == "550.54.15"
    assert facts.nvml.cuda_driver_version is None  # "CUDA 12.4" does not say whose CUDA
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [("A100", "8.0")] * 4
    assert facts.platform.os_id == "ubuntu"
    assert facts.platform.os_version == "22.04"
    assert facts.kernel.release == "5.15.0-105-generic"
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda) == ("2.3.0+cu121", "12.1")
    assert facts.report is not None
    assert any("CUDA 12.4 is named" in n for n in facts.report.notes)
    assert [(r.section, r.first, r.last) for r in facts.report.ranges] == [("facts in text", 2, 5)]


def test_a_version_that_ends_a_sentence_is_read(read: Read) -> None:
    facts = read("I have tensorflow 2.13. GPU support does not work on my Jetson Nano\n")
    assert [(f.name, f.version) for f in facts.frameworks] == [("tensorflow", "2.13")]
    # near miss: a longer dotted version is not cut at its second dot
    facts = read("pip installed torch 2.1.0.dev20230801 on driver 535.104.05\n")
    assert all(f.version != "2.1.0" for f in facts.frameworks)


def test_an_image_tags_os_is_not_the_hosts(read: Read) -> None:
    image = read(
        "docker run --gpus all nvidia/cuda:11.4.0-base-ubuntu20.04 nvidia-smi, 550.54.15\n"
    )
    assert image.platform.os_id is None
    host = read("- OS: `Ubuntu Server 20.04 LTS`, driver 550.54.15\n")
    assert (host.platform.os_id, host.platform.os_version) == ("ubuntu", "20.04")


def test_numbers_without_their_words_are_not_facts(read: Read) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read("I updated to version 12.4 and then 550.54.15 but it still fails\n")
    with pytest.raises(FactsError, match="no report recognised"):
        read("Layer L4 fails after 12 epochs; see the T4 column of the table\n")
    facts = read("my CUDA driver 12.4 on Ubuntu 22.04\n")
    assert facts.nvml.driver_version is None  # a driver version has a three-digit branch


def test_gpu_names_are_whole_words_and_ambiguous_names_stay_unknown(read: Read) -> None:
    assert [g.compute_capability for g in read("GPU: NVIDIA A10 24GB\n").nvml.gpus] == ["8.6"]
    assert [g.compute_capability for g in read("GPU: 2 x A100\n").nvml.gpus] == ["8.0"] * 2
    facts = read("tried it on A10/A100 GPUs\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == [None]
    assert facts.report is not None
    assert any("different compute capabilities" in n for n in facts.report.notes)
    # "A1000" (a laptop GPU the matrix may not list) is not an A100
    assert all(
        g.name != "A100" for g in read("GPU: RTX A1000 laptop, driver 550.54.15\n").nvml.gpus
    )


def test_prose_gpus_do_not_add_to_a_gpu_listing(read: Read) -> None:
    from tests.support.pasted_samples import SMI_TABLE

    facts = read(SMI_TABLE + "\nwe also have 8x H100 in another cluster\n")
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA GeForce RTX 5090"]


def test_ngc_container_refusal_is_a_driver_fact(read: Read, matrix: Matrix) -> None:
    from gpudoctor.checks import run_checks

    facts = read(
        "=============\n== PyTorch ==\n=============\n\n"
        "ERROR: This container was built for NVIDIA Driver Release 545.23 or later, but\n"
        "       version 535.104.05 was detected and compatibility mode is UNAVAILABLE.\n\n"
        "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n"
    )
    assert facts.nvml.driver_version == "535.104.05"
    assert _codes(facts)[0] == "ngc-driver-too-old"
    run = run_checks(facts, matrix)
    (line,) = [f for f in run.findings if f.subject == "ngc-driver-too-old"]
    assert "needs driver 545.23 or later and the host runs 535.104.05" in line.detail
    assert "545.23" in line.fix
    driver = run.headlines["driver"]
    assert driver.startswith("535.104.05")
    assert driver != "no GPU in the report"


def test_nccl_info_log(read: Read) -> None:
    facts = read(
        "node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        "node1:1234:1234 [0] NCCL INFO cudaDriverVersion 12020\n"
        "NCCL version 2.18.1+cuda12.1\n"
        "node1:1234:1250 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
        "node1:1234:1250 [0] NCCL WARN Cuda failure 'no kernel image is available for "
        "execution on the device'\n"
    )
    assert facts.nvml.cuda_driver_version == "12.2"
    assert [lib.version for lib in facts.cuda_libs.nccl] == ["2.18.1+cuda12.1"]
    assert _codes(facts) == ["nccl-gdr-disabled", "nccl-cuda-failure"]


def test_kernel_log_module_and_xid(read: Read, matrix: Matrix) -> None:
    from gpudoctor.checks import run_checks

    facts = read(
        "[    5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 "
        "22:23:56 UTC 2024\n"
        "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen "
        "off the bus.\n"
    )
    assert facts.kernel.nvidia_module_version == "550.54.15"
    assert [e.xid for e in facts.multigpu.xid_events] == [79]
    run = run_checks(facts, matrix)
    (xid,) = [f for f in run.findings if f.code == "xid-history"]
    assert xid.severity.value == "error"


def test_container_and_kubernetes_errors(read: Read) -> None:
    facts = read(
        "docker: Error response from daemon: failed to create task for container: OCI runtime "
        "create failed: runc create failed: error running hook #0: exit status 1, stderr: "
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
        "cannot open shared object file: no such file or directory: unknown.\n"
        "Docker version 24.0.7, build afdd53b\n"
        "NVIDIA Container Toolkit CLI version 1.14.3\n"
    )
    assert _codes(facts) == ["container-cli-no-nvml"]
    assert facts.container_runtime.docker_version == "24.0.7"
    assert facts.container_runtime.toolkit_version == "1.14.3"
    k8s = read(
        "Labels: nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB\n"
        "Events:\n"
        "  Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available: 3 "
        "Insufficient nvidia.com/gpu.\n"
    )
    assert k8s.platform.kubernetes is True
    assert [g.compute_capability for g in k8s.nvml.gpus] == ["8.0"]
    assert _codes(k8s) == ["k8s-insufficient-gpu"]


def test_program_start_up_logs(read: Read) -> None:
    ollama = read(
        'time=2024-05-01T10:00:00.000Z level=INFO source=types.go:71 msg="inference compute" '
        "id=GPU-5d5ba0d6 library=cuda variant=v12 compute=8.6 driver=12.4 "
        'name="NVIDIA GeForce RTX 3090" total="23.7 GiB" available="22.9 GiB"\n'
    )
    assert [(g.name, g.compute_capability) for g in ollama.nvml.gpus] == [
        ("NVIDIA GeForce RTX 3090", "8.6")
    ]
    assert ollama.nvml.cuda_driver_version == "12.4"
    llama = read(
        "ggml_cuda_init: found 1 CUDA devices:\n"
        "  Device 0: Tesla P40, compute capability 6.1, VMM: yes\n"
    )
    assert [(g.name, g.compute_capability) for g in llama.nvml.gpus] == [("Tesla P40", "6.1")]
    vllm = read("INFO 05-01 10:00:00 api_server.py:149] vLLM API server version 0.4.2\n")
    assert vllm.report is not None
    assert vllm.report.sections == ("facts in text",)
    jax = read(
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu.\n"
    )
    assert _codes(jax) == ["jax-cpu-fallback"]


def test_conda_list_and_dockerfile(read: Read) -> None:
    facts = read(
        "# packages in environment at /opt/conda:\n"
        "pytorch                   2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
        "pytorch-cuda              11.8                 h7e8668a_5    pytorch\n"
    )
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda, torch.cpu_only) == ("2.1.0", "11.8", False)
    docker = read("FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04\nRUN pip install x\n")
    assert docker.report is not None
    assert any("nvidia/cuda:12.4.1" in n and "(CUDA 12.4)" in n for n in docker.report.notes)


def test_a_two_line_nvrm_mismatch_states_both_versions(read: Read) -> None:
    facts = read(
        "[ 12.3] NVRM: API mismatch: the client has the version 535.129.03, but\n"
        "[ 12.3] NVRM: this kernel module has the version 535.113.01.  Please\n"
    )
    assert facts.nvml.library_version == "535.129.03"
    assert facts.kernel.nvidia_module_version == "535.113.01"
    assert _codes(facts) == ["nvrm-api-mismatch"]


def test_a_specific_signature_wins_over_a_generic_one(read: Read) -> None:
    facts = read(
        "ImportError: /x/nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: "
        "__nvJitLinkAddData_12_1, version libnvJitLink.so.12\n"
    )
    assert _codes(facts) == ["nvjitlink-shadowed"]


def test_the_scanner_patterns_pass_the_backtracking_check() -> None:
    for rule in facts_scan._RULES:
        assert problem(rule.pattern.pattern) is None, rule.needle


def test_a_big_log_reads_fast(matrix: Matrix) -> None:
    import time

    line = "node1:1234:1234 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7 driver gpu x 80GB\n"
    text = "NCCL version 2.21.5+cuda12.4\n" + line * 100_000
    start = time.perf_counter()
    facts = read_report(text, "big.log", matrix.architectures)
    assert time.perf_counter() - start < 10
    assert [lib.version for lib in facts.cuda_libs.nccl] == ["2.21.5+cuda12.4"]


def test_kernel_log_nouveau_and_command_line(read: Read, matrix: Matrix) -> None:
    from gpudoctor.checks import run_checks

    facts = read(
        "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-4.20.6 ro rd.driver.blacklist=nouveau\n"
        "[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)\n"
    )
    assert facts.kernel.cmdline == "BOOT_IMAGE=/vmlinuz-4.20.6 ro rd.driver.blacklist=nouveau"
    assert "nouveau" in facts.kernel.modules_loaded
    assert [(d.address, d.driver) for d in facts.kernel.pci_devices] == [
        ("0000:01:00.0", "nouveau")
    ]
    (nouveau,) = [f for f in run_checks(facts, matrix).findings if f.code == "nouveau-loaded"]
    assert nouveau.severity.value == "error"
    # any line nouveau logs for a device says the same, not only its chipset line
    other = read("[    3.2] nouveau 0000:02:00.0: DRM: failed to create kernel channel, -22\n")
    assert [(d.address, d.driver) for d in other.kernel.pci_devices] == [
        ("0000:02:00.0", "nouveau")
    ]
    # near miss: a line that names nouveau without a device
    proc = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023\n"
    )
    quiet = read("[    3.2] nouveau: unknown parameter 'x' ignored\n" + proc)
    assert quiet.kernel.pci_devices == ()


def test_kubernetes_words_and_settings_are_facts_not_problems(read: Read) -> None:
    facts = read(
        "I installed a k3s cluster and the gpu operator; pods need runtimeClassName: nvidia\n"
    )
    assert facts.platform.kubernetes is True
    env = read("export NCCL_P2P_DISABLE=1\nNCCL_SOCKET_IFNAME=eth0\n")
    assert [(v.name, v.value) for v in env.multigpu.nccl_env] == [
        ("NCCL_P2P_DISABLE", "1"),
        ("NCCL_SOCKET_IFNAME", "eth0"),
    ]
    # "kubernetes" inside a word, or "k8s" as part of a name, is not a cluster
    with pytest.raises(FactsError):
        read("see mykubernetesnotes and k8sutils for details\n")


def test_cupy_show_config_and_nvcc_build_line(read: Read) -> None:
    cupy = read(
        "CUDA Root                    : /usr/local/cuda-11.3\n"
        "CUDA Driver Version          : 11020\n"
        "CUDA Runtime Version         : 11030\n"
    )
    assert cupy.nvml.cuda_driver_version == "11.2"
    assert [t.nvcc_version for t in cupy.cuda_libs.toolkits] == ["11.3"]
    nvcc = read("Driver: 525.105.12\nNvcc Version: Build cuda_12.3.r12.3/compiler.33567101_0\n")
    assert nvcc.nvml.driver_version == "525.105.12"
    assert [t.nvcc_version for t in nvcc.cuda_libs.toolkits] == ["12.3"]


def test_a_process_table_is_read_without_a_verdict(read: Read, matrix: Matrix) -> None:
    from gpudoctor.checks import run_checks

    facts = read(
        "+-----------------------------------------------------------------------------+\n"
        "| Processes:                                                       GPU Memory |\n"
        "|  GPU       PID  Type  Process name                               Usage      |\n"
        "+-----------------------------------------------------------------------------+\n"
    )
    assert facts.report is not None
    assert any("--pid=host" in n for n in facts.report.notes)
    bad = [f for f in run_checks(facts, matrix).findings if f.severity.value in ("error", "warn")]
    assert bad == []


def test_a_degraded_line_is_a_warning(read: Read, matrix: Matrix) -> None:
    from gpudoctor.checks import run_checks

    facts = read("n1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n")
    (line,) = [f for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert line.severity.value == "warn"
    assert line.subject == "nccl-gdr-disabled"


def test_short_prose_names_gpus_and_versions_in_any_case(read: Read) -> None:
    facts = read("Hi, I have an a100 machine with MIG.\n\ntorch is 1.13.1\nOS: ubuntu20.04\n")
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [("a100", "8.0")]
    (torch,) = facts.frameworks
    assert torch.version == "1.13.1"
    assert (facts.platform.os_id, facts.platform.os_version) == ("ubuntu", "20.04")


def test_a_node_with_gpus_is_not_a_node_without(read: Read) -> None:
    zero = read("Capacity:\n  cpu: 64\n  nvidia.com/gpu:     0\nAllocatable:\n")
    assert _codes(zero) == ["k8s-node-zero-gpus"]
    healthy = read(
        "Capacity:\n  nvidia.com/gpu:     4\nAllocated resources:\n  nvidia.com/gpu  0  0\n"
    )
    assert _codes(healthy) == []
    assert healthy.platform.kubernetes is True


def test_the_two_line_and_csv_patterns_pass_the_backtracking_check() -> None:
    from gpudoctor.pasted import pairs, smi_csv

    for module in (pairs, smi_csv):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                assert problem(value.pattern) is None, f"{module.__name__}.{name}"


@pytest.mark.parametrize(
    "line",
    [
        "Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) (gcc (Ubuntu 11.4.0-1ubuntu1~"
        "22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #101-Ubuntu SMP Tue Nov 14 2023",
        "[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) (gcc ...) #101",
    ],
    ids=["proc-version", "dmesg-first-line"],
)
def test_proc_version_and_dmesg_name_the_kernel(read: Read, line: str) -> None:
    assert read(line + "\n").kernel.release == "5.15.0-91-generic"
    with pytest.raises(FactsError):  # the words alone state no release
        read("see Linux version notes (kernel docs)\n")


def test_every_fact_reader_reads_a_long_logs_head_and_every_known_error_line(read: Read) -> None:
    # A `pip freeze` line is read by the package reader, a line shape of its own: past a long
    # log's head it is not a fact of the report (as for the facts scan), and a known error line
    # is found wherever it is.
    pip = "torch==2.1.0+cu121\n"
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    filler = "2025-01-01 10:00:00 INFO step 1234 loss=0.4321\n" * ((FACTS_HEAD >> 5) + 1)
    late = read(filler + pip + error + filler[: 1 << 20])
    assert not late.frameworks
    assert "no-kernel-image" in _codes(late)
    early = read(pip + filler + error)
    assert [f.version for f in early.frameworks if f.name == "torch"] == ["2.1.0+cu121"]


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("nvcc --version shows as version 12.1", "12.1"),
        ("nvcc version 11.8", "11.8"),
        ("my nvcc -V says 12.4", "12.4"),
        ("- NVCC: 11.7", "11.7"),
        # near misses: another program's version after nvcc, a version required
        ("nvcc fails with gcc 12.2", None),
        ("this needs nvcc 12.1 or later", None),
    ],
)
def test_nvccs_version_told_in_prose(read: Read, line: str, version: str | None) -> None:
    if version is None:
        with pytest.raises(FactsError):
            read(line + "\n")
        return
    assert [t.nvcc_version for t in read(line + "\n").cuda_libs.toolkits] == [version]


def test_nvccs_banner_alone_says_a_toolkit_is_installed_not_its_version(read: Read) -> None:
    facts = read("nvcc: NVIDIA (R) Cuda compiler driver\n")
    assert facts.cuda_libs.toolkits == ()
    assert facts.report is not None
    assert any("nvcc's banner" in n for n in facts.report.notes)


@pytest.mark.parametrize(
    ("line", "name", "count"),
    [
        ("we run 8 A100s on the node", "A100", 8),
        ("two H100s in one box", "H100", 2),
        ("the RTX 4090s", "RTX 4090", 1),
        ("2 L40S GPUs", "L40S", 2),  # near miss: a model whose own name ends in S keeps it
    ],
)
def test_a_model_named_in_the_plural(read: Read, line: str, name: str, count: int) -> None:
    gpus = read(line + "\n").nvml.gpus
    assert [g.name for g in gpus] == [name] * count


def test_a_plural_number_is_no_gpu(read: Read) -> None:
    with pytest.raises(FactsError):
        read("100s of GPUs in the fleet\n")


@pytest.mark.parametrize(
    "command", ["$ nvidia-smi -q | grep -A2 'MIG Mode'", "nvidia-smi -q | grep -A10 'GPU 0'"]
)
def test_a_commands_option_is_no_gpu(read: Read, command: str) -> None:
    # grep's -A2 and -A10 spell the A2 and A10 models; an option's dash starts the word
    facts = read(command + "\nDriver Version: 550.54.15\n")
    assert facts.nvml.gpus == ()


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"),
        ("GPU: A2 16GB on the node", "A2"),
    ],
)
def test_a_models_own_dashes_keep_the_name(read: Read, line: str, name: str) -> None:
    assert [g.name for g in read(line + "\n").nvml.gpus] == [name]


@pytest.mark.parametrize(
    ("line", "release"),
    [
        ("running 6.8.0-45-generic since the update", "6.8.0-45-generic"),
        ("Linux 6.5.0-1018-azure", "6.5.0-1018-azure"),
        ("Debian 12, 6.1.0-18-amd64", "6.1.0-18-amd64"),
        ("host: 5.14.0-427.13.1.el9_4.x86_64", "5.14.0-427.13.1.el9_4.x86_64"),
    ],
)
def test_a_flavoured_kernel_release_is_read_without_the_word_kernel(
    read: Read, line: str, release: str
) -> None:
    assert read(line + "\n").kernel.release == release


def test_another_kernels_package_or_dkms_tree_is_not_the_running_kernel(read: Read) -> None:
    text = (
        "linux-headers-6.8.0-45-generic is already the newest version\n"
        "DKMS: building nvidia/550.54.15 for 6.8.0-45-generic\n"
        "Driver Version: 550.54.15\n"
    )
    assert read(text).kernel.release is None


def test_a_kernel_series_in_prose_is_a_note_not_a_release(read: Read) -> None:
    facts = read("after updating to kernel 6.8 the driver fails to load\n")
    assert facts.kernel.release is None
    assert facts.report is not None
    assert any("Linux kernel 6.8" in n for n in facts.report.notes)


def test_a_driver_library_file_is_said_not_taken_as_the_library_in_use(read: Read) -> None:
    # a listing shows files (an older driver's leftovers too), not the library the loader uses
    facts = read("libcuda.so.550.54.15\nlibnvidia-ml.so.535.129.03\nlibnvidia-ml.so.1\n")
    assert facts.nvml.library_version is None
    assert facts.report is not None
    notes = " ".join(facts.report.notes)
    assert "libcuda.so.550.54.15 (driver 550.54.15)" in notes
    assert "driver 535.129.03" in notes
    assert "so.1" not in notes  # the soname link names no version


def test_every_part_of_the_draft_a_line_can_fill_counts_as_told() -> None:
    """A line is read when it changes the draft: a fact put in any part (not only in a list of
    parts kept by hand) must change the fingerprint."""
    from dataclasses import fields

    from gpudoctor.pasted import facts_scan
    from gpudoctor.pasted.draft import Draft

    samples: dict[type, object] = {dict: {"k": 1}, list: ["x"], bool: True, str: "1.0"}
    for field in fields(Draft):
        if field.name in facts_scan._NOT_TOLD:
            continue
        draft = Draft()
        before = facts_scan._fingerprint(draft)
        current = getattr(draft, field.name)
        kind = type(current) if current is not None else str
        value = {0: {"index": 0}} if field.name in ("gpus", "amd_gpus") else samples[kind]
        setattr(draft, field.name, value)
        assert facts_scan._fingerprint(draft) != before, field.name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # models NVIDIA's CUDA GPUs pages do not list (its GTX 1650 and Quadro RTX 4000 it does)
        ("I have an NVIDIA GeForce MX450 and CUDA fails\n", "NVIDIA GeForce MX450"),
        (
            "Device-1: NVIDIA GP107M [GeForce MX350 Mobile / Max-Q] driver: N/A\n",
            "GeForce MX350 Mobile",
        ),
        ("on an NVIDIA Quadro K5100M since the update\n", "NVIDIA Quadro K5100M"),
    ],
)
def test_a_product_name_the_matrix_does_not_list_is_a_gpu_of_unknown_capability(
    read: Read, text: str, name: str
) -> None:
    facts = read(text)
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [(name, None)]
    assert facts.report is not None
    assert any("does not list" in n for n in facts.report.notes)


@pytest.mark.parametrize(
    "text",
    [
        "Tesla Model 3 owners manual\n",  # "Tesla" without NVIDIA is no GPU
        "GeForce Experience keeps asking me to log in\n",  # the brand without a model
        "the Titan 2 cluster went down\n",
    ],
)
def test_a_brand_word_without_a_model_is_no_gpu(read: Read, text: str) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read(text)
