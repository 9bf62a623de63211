"""Readers of the ROCm tables of the matrix: [[rocm]], [[amd_gpu]] and [[pytorch_rocm]]
(docs/matrix-format.md), each key through matrix/fields.py as every other table."""

from __future__ import annotations

from gpudoctor.matrix import fields as f
from gpudoctor.matrix.fields import COMMON_KEYS, Problems, RowReader
from gpudoctor.matrix.model import AmdGpu, PytorchRocmVariant, RocmRelease

# table name -> the key that names a row in messages
TABLES = {"rocm": "version", "amd_gpu": "name", "pytorch_rocm": "pytorch"}


def _reader(problems: Problems, where: str, raw: dict[str, object], keys: str) -> RowReader:
    return RowReader(problems, where, raw, (*keys.split(), *COMMON_KEYS))


def rocm(problems: Problems, where: str, raw: dict[str, object]) -> RocmRelease | None:
    r = _reader(problems, where, raw, "version gfx kmd")
    row = RocmRelease(
        version=r.get_str("version", f.MAJOR_MINOR),
        gfx=r.get_list("gfx", f.GFX),
        kmd=r.get_list("kmd", f.MAJOR_MINOR, required=False),
        **r.common(),
    )
    return row if r.ok else None


def amd_gpu(problems: Problems, where: str, raw: dict[str, object]) -> AmdGpu | None:
    r = _reader(problems, where, raw, "name gfx kind pci_ids")
    row = AmdGpu(
        name=r.get_str("name", f.TEXT),
        gfx=r.get_str("gfx", f.GFX),
        kind=r.get_str("kind", f.AMD_KIND),
        pci_ids=r.get_list("pci_ids", f.PCI_ID, required=False),
        **r.common(),
    )
    return row if r.ok else None


def pytorch_rocm(
    problems: Problems, where: str, raw: dict[str, object]
) -> PytorchRocmVariant | None:
    r = _reader(problems, where, raw, "pytorch rocm index_url gfx")
    row = PytorchRocmVariant(
        pytorch=r.get_str("pytorch", f.PEP440),
        rocm=r.get_str("rocm", f.ROCM),
        index_url=r.get_str("index_url", f.URL),
        gfx=r.get_list("gfx", f.GFX, required=False),
        **r.common(),
    )
    return row if r.ok else None
