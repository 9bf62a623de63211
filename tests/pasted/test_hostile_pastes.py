"""`check --from` attacked as a hostile or unlucky user would: encodings, invisible characters,
binaries, pipes, closed input, huge and pathological inputs, secrets and terminal escapes. Each
test is named after its attack; each failed before its fix."""

from __future__ import annotations

import codecs
import io
import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.decode import text_of
from gpudoctor.pasted.dispatch import read_reports
from gpudoctor.redaction import secrets_removed
from tests.support.pasted_samples import SMI_TABLE

Read = Callable[[str], HostFacts]
ROOT = Path(__file__).parents[2]

# Generous: each ran for tens of seconds to minutes before its fix, and under a second or two
# after it on one shared core.
BOUND_S = 15.0


def _check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- encodings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (b"", "utf-16-le"),
    ],
    ids=["utf16-le-bom", "utf16-be-bom", "utf16-le-no-bom"],
)
def test_powershell_utf16_report_reads_its_first_line_and_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bom: bytes, codec: str
) -> None:
    # PowerShell's `>` writes UTF-16; the first line is a pip line (read only at a line's
    # start) and a known error line holds characters outside Latin-1, which the report quotes.
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    paste = f"torch==2.5.1+cpu\n{error} “Jammy” 日本語\n" + SMI_TABLE
    report = tmp_path / "out.txt"
    report.write_bytes(bom + paste.replace("\n", "\r\n").encode(codec))
    code, out, _ = _check(["--from", str(report), "--format", "json"], capsys)
    assert code == 1
    facts = json.loads(out)["facts"]
    assert [f["version"] for f in facts["frameworks"]] == ["2.5.1+cpu"]
    # typographic quotes are read as the ASCII ones a tool prints; the rest stays as written
    assert [e["text"] for e in facts["report"]["errors"]] == [f'{error} "Jammy" 日本語']


def test_utf8_bom_and_cp1252_bytes_decode_as_written() -> None:
    assert text_of(codecs.BOM_UTF8 + b"Driver Version: 550", "f") == "Driver Version: 550"
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be")):
        assert text_of(bom + "Größe 550".encode(codec), "f") == "Größe 550"
    assert text_of("Größe: 24 GB — 550".encode("cp1252"), "f") == "Größe: 24 GB — 550"
    # UTF-8 with one damaged byte stays UTF-8 (its other characters are not mangled)
    assert text_of("Größe\xff".encode().replace(b"\xc3\xbf", b"\xff"), "f") == "Größe\ufffd"


# --- binaries, pipes, closed input ------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "named"),
    [
        (b"\x7fELF\x02\x01\x01" + bytes(200), "an executable (ELF)"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "a PNG image"),
        (b"\x1f\x8b\x08\x00" + bytes(300), "a gzip archive"),
        (bytes(range(256)) * 8, "a binary file"),
    ],
    ids=["elf", "png", "tar-gz", "random-binary"],
)
def test_a_binary_file_is_named_as_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], head: bytes, named: str
) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(head + b"\nDriver Version: 550.54.15\n")
    code, _, err = _check(["--from", str(path)], capsys)
    assert code == 2
    assert err.startswith(f"error: {path}: {named}, not a text report\nhint: ")
    assert "Traceback" not in err


def test_a_text_with_a_stray_nul_is_still_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(SMI_TABLE.replace("Mon", "Mo\x00n").encode())
    assert _check(["--from", str(path), "--only", "driver-version"], capsys)[0] == 0


def test_closed_standard_input_is_bad_input_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python gives a process started with `<&-`
    code, _, err = _check(["--from", "-"], capsys)
    assert code == 2
    assert err.startswith("error: standard input is closed\nhint: ")


def test_unreadable_standard_input_is_bad_input_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = io.TextIOWrapper(io.BytesIO(b"x"))
    stream.buffer.close()
    monkeypatch.setattr(sys, "stdin", stream)
    code, _, err = _check(["--from", "-"], capsys)
    assert code == 2
    assert err.startswith("error: cannot read standard input: ")


def test_process_substitution_pipe_is_refused_with_the_way_that_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "63"  # what `--from <(nvidia-smi)` names
    os.mkfifo(fifo)
    code, _, err = _check(["--from", str(fifo)], capsys)
    assert code == 2
    assert "not a regular file (a pipe or device)" in err
    assert "nvidia-smi | gpudoctor check --from -" in err


def test_a_2gb_sparse_file_is_refused_by_its_size_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as stream:
        stream.truncate(2 << 30)
    tracemalloc.start()
    try:
        code, _, err = _check(["--from", str(path)], capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    assert "larger than 64 MiB" in err
    assert peak < 16 << 20  # refused by its size: not one 64 MiB read of zeros


# --- invisible, wide and bidirectional characters ---------------------------------------------


@pytest.mark.parametrize(
    "driver",
    [
        "55\u200b0.54.15",  # a zero-width space (web pages, chat apps)
        "\u2066550.54.15\u2069",  # a left-to-right isolate around a pasted value
        "\u202d550.54.15\u202c",  # a left-to-right override
        "\uff15\uff15\uff10\uff0e\uff15\uff14\uff0e\uff11\uff15",  # full-width (CJK input)
        "\u0665\u0665\u0660.\u0665\u0664.\u0661\u0665",  # Arabic-Indic digits
        "550.54.1\b15",  # a terminal capture of a typed correction
        "5\b55\b50\b0.54.15",  # overstrike (bold, as `man` prints it)
    ],
    ids=["zero-width", "isolate", "override", "full-width", "arabic-indic", "backspace", "bold"],
)
def test_a_version_with_invisible_or_lookalike_characters_reads_as_shown(
    read: Read, driver: str
) -> None:
    facts = read(f"Driver Version: {driver}\nCUDA Version: 12.4\n")
    assert facts.nvml.driver_version == "550.54.15"


def test_c1_controls_and_escapes_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.txt"
    hostile = (
        "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;owned\x07\u202e\x9b31m"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device"
        "\x1b]52;c;aGk=\x07\u202e\x9b2J\n"
    )
    path.write_text(SMI_TABLE + hostile, encoding="utf-8")
    for fmt in ("text", "json", "markdown"):
        _, out, err = _check(["--from", str(path), "--format", fmt], capsys)
        assert "no-kernel-image" in out
        for raw in ("\x1b", "\x9b", "\x07", "\u202e"):
            assert raw not in out + err, (fmt, raw)


# --- size and pathological shapes -------------------------------------------------------------


@pytest.mark.parametrize("fill", ["A100 ", "RTX 4090 ", "1 "], ids=["a100", "rtx", "digits"])
def test_lines_naming_a_gpu_a_thousand_times_read_in_bounded_time(read: Read, fill: str) -> None:
    line = ("GPU A100 " + fill * 1000)[:1999]
    start = time.monotonic()
    facts = read("\n".join([line] * 400) + "\n")
    assert time.monotonic() - start < BOUND_S
    assert [g.name for g in facts.nvml.gpus] == ["A100"]


@pytest.mark.parametrize(
    ("fact", "expect"),
    [
        ("Driver Version: 550.54.15", "550.54.15"),
        ("GPU: NVIDIA A100 80GB", "A100"),
    ],
    ids=["driver", "gpu-name"],
)
def test_a_fact_inside_a_100k_character_line_is_read(read: Read, fact: str, expect: str) -> None:
    facts = read("x" * 100_000 + f" {fact} " + "x" * 100_000 + "\n")
    assert expect in (facts.nvml.driver_version, *(g.name for g in facts.nvml.gpus))


# --- secrets ----------------------------------------------------------------------------------

SECRETS = {
    "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF12": "hf_abcdefghij",
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE": "AKIAIOSFODNN7",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "wJalrXUtnFEMI",
    "curl -H 'Authorization: Bearer abc.def-SECRET1' https://x.example": "SECRET1",
    "NGC_API_KEY=nvapi-AbCdEfGhIjKlMnOpQrStUvWx0123": "nvapi-AbCd",
    "docker login nvcr.io -u '$oauthtoken' -p SECRET2pass": "SECRET2",
    "echo SECRET3pass | docker login -u bob --password-stdin": "SECRET3",
    "    token: eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJrdWJlIn0.SECRET4sig": "SECRET4",
    "    client-key-data: LS0tLS1CRUdJTiBSU0EgSECRET5": "SECRET5",
    '{"auths": {"nvcr.io": {"auth": "JG9hdXRodG9rSECRET6"}}}': "SECRET6",
    "pip install --index-url https://user:SECRET7@pypi.example/simple torch": "SECRET7",
    "GITHUB_TOKEN=ghp_SECRET8SECRET8SECRET8SECRET8": "SECRET8",
}


def test_the_rule_removes_every_secret_and_keeps_the_rest() -> None:
    for line, secret in SECRETS.items():
        assert secret not in secrets_removed(line), line
        # the name stays: the reader sees that a value was there
        assert "<redacted>" in secrets_removed(line) or "://" in line, line
    for benign in (
        "tokenizer='meta-llama/Llama-3-8B', max_tokens=512, author: bob",
        "docker run -p 8080:80 --gpus all nvcr.io/nvidia/pytorch:24.01-py3",
        "HF_HUB_ENABLE_HF_TRANSFER=1 Driver Version: 550.54.15 ghcr.io/org/img",
    ):
        assert secrets_removed(benign) == benign


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "junit", "github"])
def test_a_paste_full_of_secrets_is_judged_without_echoing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    # each secret also on a known error line, which the report quotes
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    lines = [*SECRETS, *(f"{error} {line}" for line in SECRETS)]
    path = tmp_path / "report.txt"
    path.write_text("\n".join(lines) + "\n" + SMI_TABLE, encoding="utf-8")
    code, out, err = _check(["--from", str(path), "--format", fmt], capsys)
    assert code == 1
    assert "no-kernel-image" in out
    for secret in SECRETS.values():
        assert secret not in out + err, secret


def test_a_file_name_with_terminal_escapes_is_shown_not_acted_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--from *` in a folder of downloaded attachments: a name may write the clipboard (OSC 52)
    missing = tmp_path / "a\x1b]52;c;ZWNobyBoaQ==\x07\x9b2J.txt"
    for fmt in ("text", "json"):
        code, out, err = _check(["--from", str(missing), "--format", fmt], capsys)
        assert code == 2
        assert "cannot read" in err
        for raw in ("\x1b", "\x07", "\x9b"):
            assert raw not in out + err


def test_a_host_deep_in_a_long_paste_keeps_the_facts_of_its_own_lines(matrix: Matrix) -> None:
    # hosts 1 and 2 each followed by a log: the second host's NCCL line comes after 2.5
    # million lines, and its part is longer than the tail a long log is read by
    second = SMI_TABLE.replace("570.86.16", "550.54.15")
    paste = SMI_TABLE + "-\n" * 2_500_000 + second + "NCCL version 2.21.5+cuda12.4\n"
    paste += "step 1 loss 0.25\n" * 20_000
    paste += SMI_TABLE.replace("570.86.16", "535.183.01")
    hosts = read_reports(paste, "p", matrix.architectures)
    assert [h.nvml.driver_version for _, h in hosts] == ["570.86.16", "550.54.15", "535.183.01"]
    assert [lib.version for lib in hosts[1][1].cuda_libs.nccl] == ["2.21.5+cuda12.4"]


def test_nvidia_smi_l_log_is_one_host_with_a_short_note(read: Read) -> None:
    # `nvidia-smi -l 1 > log.txt` for 20 minutes: the same table 1200 times
    facts = read(SMI_TABLE * 1200)
    assert facts.report is not None
    assert facts.nvml.driver_version == "570.86.16"
    assert max(len(note) for note in facts.report.notes) < 600  # not 1200 line numbers
    assert any("and 994 more" in note for note in facts.report.notes)
    assert any("more than 1000 times" in note for note in facts.report.notes)


def test_a_paste_of_1200_disagreeing_hosts_is_cut_at_1000(matrix: Matrix) -> None:
    paste = "".join(
        SMI_TABLE.replace("570.86.16", f"570.{n // 100}.{n % 100}") for n in range(1200)
    )
    hosts = read_reports(paste, "p", matrix.architectures)
    assert len(hosts) == 1000
    assert hosts[0][1].report is not None
    assert any("more than 1000 times" in note for note in hosts[0][1].report.notes)


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def test_standard_input_from_a_terminal_says_what_it_waits_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `gpudoctor check --from -` typed at a prompt: a silent wait looks like a hang
    monkeypatch.setattr(sys, "stdin", _Terminal(io.BytesIO(SMI_TABLE.encode())))
    code, _, err = _check(["--from", "-", "--only", "driver-version"], capsys)
    assert code == 0
    assert err.startswith("reading a report from the terminal: paste it, then press Ctrl-D\n")


def test_a_utf16_snapshot_is_read_as_a_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `gpudoctor snapshot > host.json` in Windows PowerShell writes UTF-16 with a mark
    host = ROOT / "tests" / "data" / "hosts" / "h100-8x-healthy.json"
    path = tmp_path / "host.json"
    path.write_bytes(codecs.BOM_UTF16_LE + host.read_text(encoding="utf-8").encode("utf-16-le"))
    code, out, _ = _check(["--from", str(path), "--format", "json"], capsys)
    codes = {f["code"] for f in json.loads(out)["findings"]}
    assert "report-read" not in codes  # judged as the recorded host, not as pasted text
    assert code == run(["check", "--from", str(host), "--format", "json"])


def test_a_folder_mixing_binaries_and_texts_judges_the_texts_and_names_the_binaries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.txt").write_text(SMI_TABLE, encoding="utf-8")
    (tmp_path / "shot.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")  # a symlink loop: not a file
    os.mkfifo(tmp_path / "pipe.log")  # never opened: a folder's member must be a file
    start = time.monotonic()
    code, out, _ = _check(["--from", str(tmp_path)], capsys)
    assert time.monotonic() - start < BOUND_S
    assert code == 1
    assert "2 hosts" in out
    assert "cannot read the snapshot or report" in out
    assert "a PNG image, not a text report" in out


@pytest.mark.parametrize(
    "line",
    [
        "Driver Version: \x1b(B\x1b[m550.54.15",  # `tput sgr0` in a script's log
        "Driver Version: 550.54.15\x1b7\x1b8",  # save and restore the cursor
        "\x1b]52;c;" + "QUFB" * 300 + "\x07Driver Version: 550.54.15",  # a long OSC 52 write
        "\x1bP1$r0m\x1b\\Driver Version: 550.54.15",  # a DCS string
    ],
    ids=["charset", "cursor", "osc52-long", "dcs"],
)
def test_every_terminal_escape_is_removed_whole(read: Read, line: str) -> None:
    facts = read(line + "\nCUDA Version: 12.4\n")
    assert facts.nvml.driver_version == "550.54.15"
    assert facts.report is not None
    assert not any("QUFB" in note for note in facts.report.notes)


def test_a_non_blocking_standard_input_waits_for_its_writer(tmp_path: Path) -> None:
    # a parent that left O_NONBLOCK on the pipe (some terminals and CI runners do): the read
    # finds no data yet, which is not the end of the report
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    child = subprocess.Popen(
        [sys.executable, "-m", "gpudoctor", "check", "--from", "-", "--only", "driver-version"],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(read_end)
    time.sleep(1.0)  # the child is reading by now: an empty, non-blocking pipe
    os.write(write_end, SMI_TABLE.encode())
    os.close(write_end)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert b"570.86.16" in out


def test_a_secret_after_characters_that_lengthen_in_lower_case_is_removed() -> None:
    # "İ".lower() is two characters: offsets taken in a lower-cased copy must not shift
    text = "İİİİ\n" * 3 + "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123\nnext line\n"
    assert secrets_removed(text) == "İİİİ\n" * 3 + "HF_TOKEN=<redacted>\nnext line\n"
