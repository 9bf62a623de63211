"""Tiny real artifacts for the wheel tests: an ELF with a `.nv_fatbin` section laid out as
nvcc 13.0 lays it out (test_fatbin.py checks the layout against nvcc itself where it exists),
wheels holding it, and a simple index served on 127.0.0.1 (with or without range support)."""

from __future__ import annotations

import http.server
import io
import json
import struct
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

FLAGS = {"": 0x11, "a": 0x100011, "f": 0x200011}


def fatbin(entries: list[tuple[str, int, str]]) -> bytes:
    """One fat binary: entries of (kind "sass"|"ptx", sm, suffix)."""
    body = b""
    for kind, sm, suffix in entries:
        payload = b"\0" * 32
        flags = FLAGS[suffix] | (0x8000 if kind == "ptx" else 0)
        header = struct.pack(
            "<HHIQIIHHIIIQQQ",
            1 if kind == "ptx" else 2,
            0x101,
            64,
            len(payload),
            0,
            0,
            8,
            1,
            sm,
            0,
            0,
            flags,
            0,
            0,
        )
        body += header + payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def elf(sections: dict[str, bytes]) -> bytes:
    """A minimal 64-bit little-endian ELF holding the given sections (no program headers)."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in [*sections, ".shstrtab"])
    data = bytearray(b"\0" * 64)
    headers = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for name, content in [*sections.items(), (".shstrtab", names)]:
        while len(data) % 8:
            data.append(0)
        offset = len(data)
        data += content
        name_off = names.index(name.encode() + b"\0")
        headers.append(
            struct.pack("<IIQQQQIIQQ", name_off, 1, 2, 0, offset, len(content), 0, 0, 8, 0)
        )
    while len(data) % 8:
        data.append(0)
    shoff = len(data)
    data += b"".join(headers)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    header = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(headers), len(headers) - 1
    )
    data[:64] = header
    return bytes(data)


def wheel(
    name: str,
    version: str,
    *,
    requires_python: str | None = None,
    requires: tuple[str, ...] = (),
    files: dict[str, bytes] | None = None,
) -> bytes:
    out = io.BytesIO()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if requires_python:
        lines.append(f"Requires-Python: {requires_python}")
    lines += [f"Requires-Dist: {r}" for r in requires]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in (files or {}).items():
            archive.writestr(path, content)
        archive.writestr(f"{name}-{version}.dist-info/METADATA", "\n".join(lines) + "\n")
    return out.getvalue()


def torch_wheel(
    version: str,
    cuda: str | None,
    cudnn: str,
    arches: list[tuple[str, int, str]],
    extra: dict[str, bytes] | None = None,
) -> bytes:
    version_py = f"__version__ = '{version}'\ncuda: Optional[str] = {cuda!r}\ngit_version = 'abc'\n"
    major = (cuda or "12").split(".")[0]
    library = elf({".text": b"\x90" * 16, ".nv_fatbin": fatbin(arches)})
    return wheel(
        "torch",
        version,
        requires_python=">=3.9",
        requires=(f'nvidia-cudnn-cu{major}=={cudnn}; platform_system == "Linux"',),
        files={
            **(extra or {}),
            "torch/version.py": version_py.encode(),
            "torch/lib/libtorch_cuda.so": library,
        },
    )


@dataclass
class Index:
    """Projects -> {filename: bytes}; pages as JSON (PEP 691) or HTML (PEP 503)."""

    projects: dict[str, dict[str, bytes]] = field(default_factory=dict)
    json_pages: bool = True
    ranges: bool = True
    broken: set[str] = field(default_factory=set)  # projects whose page is garbage
    requests: list[str] = field(default_factory=list)
    bytes_sent: int = 0  # file bytes served

    def add(self, project: str, filename: str, content: bytes) -> None:
        self.projects.setdefault(project, {})[filename] = content


@contextmanager
def serve(index: Index) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:
            index.requests.append(self.path)
            parts = [p for p in self.path.split("/") if p]
            if len(parts) == 2 and parts[0] == "simple":
                self._page(parts[1])
            elif (
                len(parts) == 3
                and parts[0] == "files"
                and parts[2] in index.projects.get(parts[1], {})
            ):
                self._file(index.projects[parts[1]][parts[2]])
            else:
                self.send_error(404)

        def _page(self, project: str) -> None:
            if project not in index.projects:
                self.send_error(404)
                return
            if project in index.broken:
                self._send(200, "text/plain", b"this is not an index page")
                return
            names = sorted(index.projects[project])
            wants_json = "vnd.pypi.simple.v1+json" in self.headers.get("Accept", "")
            if index.json_pages and wants_json:
                doc = {
                    "meta": {"api-version": "1.1"},
                    "name": project,
                    "files": [
                        {"filename": n, "url": f"../../files/{project}/{n}", "hashes": {}}
                        for n in names
                    ],
                }
                self._send(200, "application/vnd.pypi.simple.v1+json", json.dumps(doc).encode())
            else:
                links = "".join(f'<a href="/files/{project}/{n}#sha256=0">{n}</a>\n' for n in names)
                self._send(200, "text/html", f"<html><body>{links}</body></html>".encode())

        def _file(self, content: bytes) -> None:
            wanted = self.headers.get("Range")
            if index.ranges and wanted and wanted.startswith("bytes="):
                first, _, last = wanted[6:].partition("-")
                start, end = int(first), min(int(last or len(content) - 1), len(content) - 1)
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(content)}")
                self.send_header("Content-Length", str(end - start + 1))
                self.end_headers()
                self.wfile.write(content[start : end + 1])
                index.bytes_sent += end + 1 - start
                return
            index.bytes_sent += len(content)
            self._send(200, "application/octet-stream", content)

        def _send(self, code: int, content_type: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    finally:
        server.shutdown()
        server.server_close()
