"""Facts inside the envelope a log or a page puts around each line are read as the message
itself (pasted/envelopes.py), each shape written from its tool's documented format, beside a
near miss that must stay as it is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.pasted import envelopes, records
from gpudoctor.pasted.clean import clean

Read = Callable[[str], HostFacts]

# `nvidia-container-cli info`'s version line, which the fact scanner reads only at the start of
# its line (a sentence that quotes it is no report)
_CLI = "cli-version: 1.14.3"


@pytest.mark.parametrize(
    "line",
    [
        # a GitHub Actions log: its time stamp of seven digits
        f"2024-01-05T12:00:01.1234567Z {_CLI}",
        # kubectl logs --timestamps, and a CRI log file's stream and tag after its time stamp
        f"2024-01-05T12:00:01.123456789Z {_CLI}",
        f"2024-01-05T12:00:01.123456789Z stdout F {_CLI}",
        # Loki's logcli: time stamp, the stream's labels, the line
        f'2024-01-05T12:00:01Z {{container="train", pod="train-0"}} {_CLI}',
        # stern and kubetail: the pod (a generated name) and its container
        f"train-7d9f8b6c4-x7k2p trainer {_CLI}",
        f"[train-7d9f8b6c4-x7k2p trainer] {_CLI}",
        # Python's logging, the cookbook's format and basicConfig's
        f"2024-01-05 12:00:01,123 - env - INFO - {_CLI}",
        f"INFO:root:{_CLI}",
        # a JSON log record: Docker's json-file log, zap's msg, journald's MESSAGE
        f'{{"log":"{_CLI}\\n","stream":"stdout","time":"2024-01-05T12:00:01Z"}}',
        f'{{"level":"info","ts":1704456001.1,"msg":"{_CLI}"}}',
        f'{{"__REALTIME_TIMESTAMP":"1704456001123456","_PID":"812","MESSAGE":"{_CLI}"}}',
        # dmesg's seconds since boot, journald's kernel tag
        f"[    4.123456] {_CLI}",
        f"Jan 05 12:00:01.123456 gpu-node-1 kernel: {_CLI}",
        # klog
        f"I0105 12:00:01.123456       1 env.go:12] {_CLI}",
    ],
)
def test_a_fact_inside_a_log_envelope_is_read(read: Read, line: str) -> None:
    facts = read(line + "\nDriver Version: 550.54.15\n")
    assert facts.container_runtime.toolkit_version == "1.14.3"


@pytest.mark.parametrize(
    "line",
    [
        # after prose, not at the start of a message: a sentence, not the report
        f"I think it said {_CLI}",
        # a "host" that is no host name and a program without its pid: prose
        f"Jan 05 12:00:01 the log says: {_CLI}",
        # a statefulset's pod (no generated suffix) before two words: no stern prefix
        f"gpu-worker-0 main {_CLI}",
    ],
)
def test_a_line_that_is_no_envelope_is_left_as_it_is(read: Read, line: str) -> None:
    facts = read(line + "\nDriver Version: 550.54.15\n")
    assert facts.container_runtime.toolkit_version is None


@pytest.mark.parametrize(
    ("line", "plain"),
    [
        # Python's logging: the cookbook's format and basicConfig's default
        (
            "2024-01-05 12:00:01,123 - trainer - ERROR - CUDA error: out of memory",
            "CUDA error: out of memory",
        ),
        ("ERROR:root:CUDA error: out of memory", "CUDA error: out of memory"),
        ("WARNING:tensorflow:Mixed precision", "Mixed precision"),
        # klog, and TensorFlow's C++ log
        (
            "E0105 12:00:01.123456       1 main.go:12] Failed to initialize NVML",
            "Failed to initialize NVML",
        ),
        (
            "2024-01-05 12:00:01.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886]"
            " Created device",
            "Created device",
        ),
        # GitHub Actions: a time stamp, then a log command
        ("2024-01-05T12:00:01.1234567Z ##[error]Process completed", "Process completed"),
        ("::error file=train.py,line=3::CUDA error", "CUDA error"),
        # kubectl logs --timestamps, a CRI log file's stream and tag
        ("2024-01-05T12:00:01.123456789Z stderr F CUDA error", "CUDA error"),
        # stern ("pod container message", a generated pod name) and kubetail
        (
            "nvidia-device-plugin-daemonset-x7k2p nvidia-device-plugin-ctr Loading NVML",
            "Loading NVML",
        ),
        ("[gpu-feature-discovery-bq4zt] Loading NVML", "Loading NVML"),
        # JSON log records: zap's msg and error, Docker's json-file log, "message"
        ('{"level":"error","ts":1,"msg":"failed","error":"no devices"}', "failed: no devices"),
        ('{"log":"CUDA error\\n","stream":"stderr","time":"2024-01-05T12:00:01Z"}', "CUDA error"),
        ('{"severity":"ERROR","message":"CUDA error"}', "CUDA error"),
        # prose after a time stamp: "torch" is no host, "version" no program with its pid
        ("2024-01-05T12:00:01Z torch version: 2.1.0", "torch version: 2.1.0"),
        # a journald program other than the kernel keeps its tag: it names what logged
        ("Jan 05 12:00:01 gpu01 k3s[1873]: Found runtime", "k3s[1873]: Found runtime"),
    ],
)
def test_the_message_is_what_remains(line: str, plain: str) -> None:
    assert envelopes.unwrap(line + "\n") == plain + "\n"


@pytest.mark.parametrize(
    "line",
    [
        # a one-line JSON object that is no log record (a manifest, a config)
        '{"apiVersion":"v1","kind":"Pod","message":"hello"}',
        # a statefulset's pod (no generated suffix) before two words
        "gpu-worker-0 main Loading NVML",
        # a log level that is not Python's prefix
        "ERROR: could not find a version that satisfies the requirement torch",
        # logfmt stays as written: apps.py reads slog's fields by name
        'time=2024-01-05T12:00:01Z level=INFO msg="inference compute" name=CUDA0',
    ],
)
def test_a_near_miss_keeps_its_line(line: str) -> None:
    text = line + "\n"
    assert envelopes.unwrap(text) is text or envelopes.unwrap(text).startswith(line[:12])


def test_an_unwrapped_paste_keeps_its_line_numbers() -> None:
    text = '[    4.1] a\n{"level":"info","msg":"b\\nc"}\nplain\n'
    assert envelopes.unwrap(text).count("\n") == text.count("\n")


def test_a_fact_in_a_json_record_is_read(read: Read) -> None:
    # zap's record around nvidia-smi's header line: the driver is read from its message
    line = (
        '{"level":"info","ts":1704456001.1,"msg":"NVIDIA-SMI 535.104.05   '
        'Driver Version: 535.104.05   CUDA Version: 12.2"}\n'
    )
    assert read(line).nvml.driver_version == "535.104.05"


def test_nvidia_container_cli_debug_log_keeps_its_klog_prefix(read: Read) -> None:
    # its reader keys on the prefix's file name (nvc.c), so the shape reads the line as written
    line = "I0312 10:21:43.123456 4321 nvc.c:376] initializing library context (version=1.14.3)\n"
    assert read(line).container_runtime.toolkit_version == "1.14.3"
    assert records.message(line) is not None


_SMI = "NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4\n\n"


@pytest.mark.parametrize(
    "line",
    [
        # journalctl -o short-precise: a fraction of a second the short format lacks
        "Jan 05 12:00:01.123456 gpu-node-1 nvidia-smi[812]: No devices were found",
        # journalctl -o short-iso: the host and program after an ISO time stamp
        "2024-01-05T12:00:01+0000 gpu-node-1 nvidia-smi[812]: No devices were found",
        # Loki's logcli, stern, kubetail
        '2024-01-05T12:00:01Z {unit="gpu-check.service"} No devices were found',
        "dcgm-exporter-x7k2p dcgm-exporter No devices were found",
        "[dcgm-exporter-x7k2p dcgm-exporter] No devices were found",
        # GitHub Actions' error command, Python's logging
        "2024-01-05T12:00:01.1234567Z ##[error]No devices were found",
        "2024-01-05 12:00:01,123 - gpu_check - ERROR - No devices were found",
        # journalctl -o json
        '{"__REALTIME_TIMESTAMP":"1704456001123456","_PID":"812",'
        '"MESSAGE":"No devices were found"}',
    ],
)
def test_a_known_line_inside_an_envelope_is_named(read: Read, line: str) -> None:
    report = read(_SMI + line + "\n").report
    assert report is not None
    assert "nvidia-smi-no-devices" in [e.code for e in report.errors]


def test_a_known_line_after_prose_is_not_the_anchored_message(read: Read) -> None:
    # nvidia-smi's words inside a sentence are not what nvidia-smi printed
    report = read(_SMI + "Jan 05 12:00:01 we saw that No devices were found\n").report
    assert report is not None
    assert "nvidia-smi-no-devices" not in [e.code for e in report.errors]


def test_a_markdown_table_row_reads_as_key_and_value(read: Read) -> None:
    # an issue template's environment table, two columns and three
    text = (
        "| Component | Version |\n"
        "| --- | --- |\n"
        "| cli-version | 1.14.3 |\n"
        "\n"
        "| GPU | Driver | CUDA |\n"
        "| :--- | --- | ---: |\n"
        "| A100 | 535.104.05 | 12.2 |\n"
    )
    facts = read(text)
    assert facts.container_runtime.toolkit_version == "1.14.3"
    assert envelopes.unwrap(text).split("\n")[6] == "GPU: A100, Driver: 535.104.05, CUDA: 12.2"


def test_an_nvidia_smi_table_is_no_markdown_table() -> None:
    # its rules hold "+" and "=": not a Markdown delimiter row, the rows stay as printed
    text = (
        "|-----------------------------------------+------------------------+\n"
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A |\n"
        "|=========================================+========================|\n"
        "|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |\n"
    )
    assert envelopes.unwrap(text) is text


def test_html_around_a_pasted_log_is_dropped(read: Read) -> None:
    text = (
        "<details><summary>nvidia-container-cli info</summary>\n<pre>\n"
        f"{_CLI}\n</pre>\n</details>\n"
        "Driver Version: 550.54.15\n"
    )
    assert read(text).container_runtime.toolkit_version == "1.14.3"


def test_a_tag_like_word_without_html_is_kept() -> None:
    # a C++ template in a build log: no closing tag of HTML's in the paste
    assert clean("error: no match for std::vector<b> and <code\n") == (
        "error: no match for std::vector<b> and <code\n"
    )


def test_a_version_constraint_at_a_line_start_is_no_quote() -> None:
    # a wrap put ">=" at a line's start inside a quoted block: the constraint stays
    assert clean("> requires torch\n>=2.1 and CUDA 12\n") == "requires torch\n>=2.1 and CUDA 12\n"
    assert clean("> quoted\n") == "quoted\n"


@pytest.mark.parametrize(
    "fence", ['```python title="train.py"', "```{.bash}", "~~~ yaml linenums=1"]
)
def test_a_fence_with_attributes_is_dropped(fence: str) -> None:
    assert clean(f"{fence}\ncli-version: 1.14.3\n```\n") == "\ncli-version: 1.14.3\n\n"


def test_a_command_glued_to_its_fence_is_kept() -> None:
    # "$ nvidia-smi" is no language with attributes: the line stays, its backticks go
    assert clean("```$ nvidia-smi -L\n```\n") == "$ nvidia-smi -L\n\n"


def test_a_python_record_at_info_keeps_its_level_for_the_signatures() -> None:
    from gpudoctor.pasted import records

    probe = "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': no CUDA devices"
    assert records.message(probe) is None  # matched as written: the entries read the level
    failed = "ERROR:train:Unable to initialize backend 'cuda': no CUDA devices"
    assert records.message(failed) == "Unable to initialize backend 'cuda': no CUDA devices"
