"""The bytes of `check --from FILE` as text, in the encoding they were written in.

Reports reach us in every encoding a terminal or an editor writes: Windows PowerShell's
`nvidia-smi > out.txt` is UTF-16 with a byte-order mark, Notepad may add a UTF-8 one, an old
editor saves cp1252. A file that is not text at all (an executable, an image, an archive) is
named as what it is, not searched for a report.
"""

from __future__ import annotations

import codecs
import re

from gpudoctor.errors import FactsError

_SAMPLE = 8192  # bytes looked at to tell the encoding: the head of any real text holds ASCII
# The magic numbers of the binaries people pick by mistake (the file's first bytes).
_MAGIC = (
    (b"\x7fELF", "an executable (ELF)"),
    (b"MZ", "a Windows executable"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"(\xb5/\xfd", "a zstd archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_ARCHIVES = ("archive",)
# Every byte but the control characters no text holds (tab, line feed, form feed, carriage
# return, backspace and escape are text: terminal captures hold them).
_TEXT_BYTES = bytes(b for b in range(256) if b >= 0x20 or b in b"\t\n\x0c\r\x08\x1b")
# A valid UTF-8 sequence of two or more bytes: a file holding one is UTF-8 with some damage,
# one holding none but high bytes is a single-byte code page.
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]{1,3}")


def text_of(data: bytes, name: str) -> str:
    """`data` decoded: by its byte-order mark (UTF-8, UTF-32, UTF-16), as BOM-less UTF-16 when
    every other byte is NUL, as UTF-8, or as cp1252 when it is not UTF-8 and holds no UTF-8
    sequence. FactsError for a binary file."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    # before UTF-16: UTF-32's little-endian mark begins with UTF-16's
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    utf16 = _utf16(data)
    if utf16 is not None:
        body = data[2:] if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else data
        return body.decode(utf16, errors="replace").removeprefix("\ufeff")
    _refuse_binary(data, name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if _UTF8_MULTIBYTE.search(data, 0, _SAMPLE * 8):
        return data.decode("utf-8", errors="replace")
    return data.decode("cp1252", errors="replace")


def _utf16(data: bytes) -> str | None:
    """ "utf-16-le" or "utf-16-be" when the text is UTF-16 (with or without its mark): the
    ASCII that every report is mostly made of leaves a NUL in every other byte."""
    sample = data[:_SAMPLE]
    if sample[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        sample = sample[2:]
    if len(sample) < 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    half = len(sample) // 2
    if odd.count(0) > half * 0.3 and even.count(0) < half * 0.05:
        return "utf-16-le"
    if even.count(0) > half * 0.3 and odd.count(0) < half * 0.05:
        return "utf-16-be"
    return None


def _refuse_binary(data: bytes, name: str) -> None:
    what = next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)
    if what is None:
        sample = data[:_SAMPLE]
        # Text may hold a stray control byte (a NUL or a bell in a terminal capture); a binary
        # holds them everywhere (compressed or random data: one byte in ten).
        if len(sample.translate(None, _TEXT_BYTES)) <= len(sample) // 50:
            return
        what = "a binary file"
    if what == "a Windows executable" and b"\x00" not in data[:_SAMPLE]:
        return  # "MZ" may begin a text line too; an executable's header holds NULs
    hint = (
        "unpack it and pass the folder, or the report file inside: `gpudoctor check --from DIR`"
        if any(word in what for word in _ARCHIVES)
        else "pass the text report itself (what `nvidia-smi` or `python -m "
        "torch.utils.collect_env` printed, saved to a file), or a `gpudoctor snapshot`"
    )
    raise FactsError(f"{name}: {what}, not a text report", hint=hint)
