"""`gpudoctor matrix update`: compare the matrix with what a package index serves, and propose
the rows it lacks or has wrong, each change with the evidence read from the wheels.

Facts come from the artifacts only (gpudoctor.wheels): Python versions from the CPython wheels
that exist, CUDA from torch/version.py or TensorFlow's [and-cuda] pins, cuDNN from the
`nvidia-cudnn-cu*` pin, compiled architectures from libtorch_cuda.so's fatbins. Releases older
than the matrix's oldest row of a framework are left alone: that history is curated by hand.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpudoctor import netread, versions
from gpudoctor.matrix import edit
from gpudoctor.matrix.model import Matrix, PytorchRelease, PytorchVariant, TensorflowRelease
from gpudoctor.netread import FetchError
from gpudoctor.redaction import url_without_credentials
from gpudoctor.wheels import index, release
from gpudoctor.wheels.fields import Field, companion_pin, release_fields
from gpudoctor.wheels.index import MalformedIndexPage
from gpudoctor.wheels.release import ReleaseWheels
from gpudoctor.wheels.wheel import WheelFacts

if TYPE_CHECKING:
    from gpudoctor.versions import Version

Edit = Callable[[list[str]], list[str]]
_COMPANIONS_TRIED = 8
_VERIFIED_TF = (
    "Verified from the released wheel's METADATA ([and-cuda] pins) by `gpudoctor matrix update` "
    "(see evidence)."
)
_VERIFIED_NOTE = (
    "Verified from the released wheel by `gpudoctor matrix update` (see evidence); PyPI's "
    "default-CUDA torch wheel is the download.pytorch.org wheel with only its version tag changed."
)  # newest companion releases whose pins are read per torch release


@dataclass(frozen=True)
class Proposal:
    summary: str  # "pytorch 2.16.0: add the release (variants cu130)"
    evidence: tuple[str, ...]
    edit: Edit | None  # None: the lag is reported but no row can be written (says why)


@dataclass
class Updater:
    matrix: Matrix
    index_url: str
    arch_lists: bool = False  # also re-read arch lists of rows already at the index's version
    log: Callable[[str], None] = lambda _line: None
    deadline_s: float = netread.DEFAULT_DEADLINE_S  # per request, the whole reply
    _urls: dict[str, str] = field(default_factory=dict)  # wheel file name -> its URL
    _cache: dict[str, dict[Version, ReleaseWheels]] = field(default_factory=dict)
    _client: netread.Client | None = None

    @property
    def client(self) -> netread.Client:
        """The bounded reader, with the index's credentials (sent as Basic auth, never shown)."""
        if self._client is None:
            self._client = netread.Client.for_index(self.index_url, self.deadline_s)
        return self._client

    def proposals(self) -> list[Proposal]:
        out: list[Proposal] = []
        if self.matrix.pytorch:
            out += self._pytorch()
        if self.matrix.tensorflow:
            out += self._tensorflow()
        return out

    # -- reading -----------------------------------------------------------------------------

    def _releases(self, project: str) -> dict[Version, ReleaseWheels]:
        self.log(f"reading {self._project_url(project)}")
        try:
            files = index.project_files(self.client, self.index_url, project)
        except FetchError as exc:
            if exc.status != 404:
                raise
            # PEP 503: an index answers 404 for a project it does not have (torch without
            # torchvision): the project is absent, not the index unreachable.
            self.log(f"{project}: not on this index (HTTP 404)")
            return {}
        return release.releases(project, files)

    def _facts(self, wheels: ReleaseWheels, *, fatbins: bool) -> tuple[WheelFacts, list[Field]]:
        wheel = wheels.representative()
        self._urls[wheel.filename] = wheel.url
        self.log(f"reading {wheel.filename}" + (" (with fatbins)" if fatbins else ""))
        try:
            facts = release.read(self.client, wheel, fatbins=fatbins)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise MalformedIndexPage(
                f"{url_without_credentials(wheel.url)}: not a readable wheel: {str(exc)[:200]}",
                hint="the index serves a damaged file; report it to the index's maintainers",
            ) from exc
        return facts, release_fields(wheels, facts)

    @staticmethod
    def _newest_per_minor(
        found: dict[Version, ReleaseWheels], oldest: Version
    ) -> dict[tuple[int, int], Version]:
        out: dict[tuple[int, int], Version] = {}
        for version in found:
            base = versions.pep440(version.base_version)
            minor = (base.major, base.minor)
            if minor < (oldest.major, oldest.minor):
                continue
            if minor not in out or versions.pep440(out[minor].base_version) < base:
                out[minor] = versions.pep440(version.base_version)
        return out

    # -- PyTorch ------------------------------------------------------------------------------

    def _pytorch(self) -> list[Proposal]:
        found = self._releases("torch")
        oldest = min(versions.pep440(r.version) for r in self.matrix.pytorch)
        rows = {versions.pep440(r.version).release[:2]: r for r in self.matrix.pytorch}
        out = []
        for minor, newest in sorted(self._newest_per_minor(found, oldest).items()):
            builds = {v: w for v, w in found.items() if versions.pep440(v.base_version) == newest}
            row = rows.get(minor)
            out += self._torch_release(row, newest, builds)
        return out

    def _torch_release(
        self, row: PytorchRelease | None, newest: Version, builds: dict[Version, ReleaseWheels]
    ) -> list[Proposal]:
        stale = row is None or versions.pep440(row.version) < newest
        fatbins = stale or self.arch_lists
        variants: list[tuple[str, bool, WheelFacts, dict[str, Field]]] = []
        pythons: set[str] = set()
        for build, wheels in sorted(builds.items(), key=lambda kv: str(kv[0])):
            facts, fields = self._facts(wheels, fatbins=fatbins)
            by_key = {f.key: f for f in fields}
            if not by_key.get("cuda") or not by_key["cuda"].value:
                continue  # a CPU-only build
            pythons.update(wheels.pythons)
            variants.append((str(by_key["cuda"].value), build.local is None, facts, by_key))
        if not variants:
            return []
        version = str(newest)
        python = tuple(sorted(pythons, key=versions.sort_key))
        default = next((v for v in variants if v[1]), None)
        evidence = [variants[0][3]["python"].evidence]
        if row is None:
            return [self._new_torch_row(version, python, default, variants, evidence)]
        return self._torch_changes(
            row,
            version=version,
            python=python,
            default=default,
            variants=variants,
            evidence=evidence,
            stale=stale,
        )

    def _companions(
        self, torch_version: str, known: dict[str, str | None] | None = None
    ) -> tuple[dict[str, str], list[str]]:
        """torchvision and torchaudio releases whose METADATA pins torch==`torch_version`: the
        matrix's own companion first, then the newest few on the index."""
        found: dict[str, str] = {}
        evidence: list[str] = []
        for project in ("torchvision", "torchaudio"):
            if project not in self._cache:
                self._cache[project] = self._releases(project)
            releases = self._cache[project]
            mine = (known or {}).get(project)
            newest = [v for v in sorted(releases, reverse=True) if not v.local]
            candidates = (
                [versions.pep440(mine)] if mine and versions.pep440(mine) in releases else []
            )
            candidates += newest[:_COMPANIONS_TRIED]
            for version in candidates:
                facts, _fields = self._facts(releases[version], fatbins=False)
                if companion_pin(facts, "torch") == torch_version:
                    found[project] = str(version)
                    evidence.append(
                        f"{facts.filename} METADATA Requires-Dist: {facts.pin_line('torch')}"
                    )
                    break
        return found, evidence

    def _new_torch_row(
        self,
        version: str,
        python: tuple[str, ...],
        default: tuple[str, bool, WheelFacts, dict[str, Field]] | None,
        variants: list[tuple[str, bool, WheelFacts, dict[str, Field]]],
        evidence: list[str],
    ) -> Proposal:
        companions, companion_evidence = self._companions(version)
        tags = ", ".join(_tag(v[0]) for v in variants)
        summary = f"pytorch {version}: add the release (variants {tags})"
        evidence += companion_evidence + [f.evidence for v in variants for f in v[3].values()]
        if "torchvision" not in companions:
            return Proposal(
                f"{summary}; not written: no torchvision on the index pins torch=={version}",
                tuple(evidence),
                None,
            )
        lines = [
            "[[pytorch]]",
            f'version = "{version}"',
            f"python = {_toml(python)}",
            f'torchvision = "{companions["torchvision"]}"',
        ]
        if "torchaudio" in companions:
            lines.append(f'torchaudio = "{companions["torchaudio"]}"')
        if default:
            lines.append(f'pypi_default_cuda = "{default[0]}"')
        lines += [
            f'source = "{self._project_url("torch")} (read by gpudoctor matrix update)"',
            f"evidence = {_quote('; '.join([evidence[0], *companion_evidence]))}",
        ]
        for cuda, _default, facts, by_key in variants:
            lines += ["", *self._variant_block(cuda, facts, by_key)]

        def add(text: list[str]) -> list[str]:
            return _insert_release(text, "pytorch", version, lines)

        return Proposal(summary, tuple(evidence), add)

    def _variant_block(self, cuda: str, facts: WheelFacts, by_key: dict[str, Field]) -> list[str]:
        tag = _tag(cuda)
        lines = [
            "[[pytorch.variants]]",
            f'cuda = "{cuda}"',
            f'tag = "{tag}"',
            f'index_url = "https://download.pytorch.org/whl/{tag}"',
            f'cudnn = "{by_key["cudnn"].value if "cudnn" in by_key else ""}"',
        ]
        if "arch_list" in by_key:
            lines.append(f"arch_list = {by_key['arch_list'].toml()}")
        lines += [
            f'source = "{self._wheel_url(facts)} (read by gpudoctor matrix update)"',
            f"evidence = {_quote(_variant_evidence(by_key))}",
        ]
        return lines

    def _torch_changes(
        self,
        row: PytorchRelease,
        *,
        version: str,
        python: tuple[str, ...],
        default: tuple[str, bool, WheelFacts, dict[str, Field]] | None,
        variants: list[tuple[str, bool, WheelFacts, dict[str, Field]]],
        evidence: list[str],
        stale: bool,
    ) -> list[Proposal]:
        out: list[Proposal] = []
        key = row.version  # the row is found by its version as the file has it
        companions, companion_evidence = self._companions(
            version,
            None if stale else {"torchvision": row.torchvision, "torchaudio": row.torchaudio},
        )
        if stale:
            changes = [("version", f'"{version}"')]
            changes.append(("evidence", _quote("; ".join([evidence[0], *companion_evidence]))))
            for name in ("torchvision", "torchaudio"):
                if name in companions and companions[name] != getattr(row, name):
                    changes.append((name, f'"{companions[name]}"'))
            out.append(
                Proposal(
                    f"pytorch {row.version}: the index has {version}",
                    tuple(evidence + companion_evidence),
                    _set_row("pytorch", key, changes),
                )
            )
            key = version  # the edits below apply after the row took the new version
        else:
            for name in ("torchvision", "torchaudio"):
                if name in companions and companions[name] != getattr(row, name):
                    out.append(
                        Proposal(
                            f"pytorch {key}: {name} {getattr(row, name)} -> {companions[name]}",
                            tuple(companion_evidence),
                            _set_row("pytorch", key, [(name, f'"{companions[name]}"')]),
                        )
                    )
            if not row.evidence and row.verified:
                text = "; ".join([evidence[0], *companion_evidence])
                out.append(
                    Proposal(
                        f"pytorch {key}: record the evidence of its verified facts",
                        (text,),
                        _set_row("pytorch", key, [("evidence", _quote(text))]),
                    )
                )
        if python != row.python:
            out.append(
                Proposal(
                    f"pytorch {row.version}: python {_toml(row.python)} -> {_toml(python)}",
                    tuple(evidence),
                    _set_row("pytorch", key, [("python", _toml(python))]),
                )
            )
        if default and default[0] != row.pypi_default_cuda:
            out.append(
                Proposal(
                    f"pytorch {row.version}: pypi_default_cuda {row.pypi_default_cuda} -> "
                    f"{default[0]}",
                    (default[3]["cuda"].evidence,),
                    _set_row("pytorch", key, [("pypi_default_cuda", f'"{default[0]}"')]),
                )
            )
        for cuda, _default, facts, by_key in variants:
            existing = next((v for v in row.variants if v.cuda == cuda), None)
            if existing is None:
                block = self._variant_block(cuda, facts, by_key)
                out.append(
                    Proposal(
                        f"pytorch {row.version}: add variant {_tag(cuda)}",
                        tuple(f.evidence for f in by_key.values()),
                        _add_variant(key, block),
                    )
                )
            else:
                out += self._variant_changes(key, existing, facts, by_key)
        return out

    def _variant_changes(
        self,
        key: str,
        variant: PytorchVariant,
        facts: WheelFacts,
        by_key: dict[str, Field],
    ) -> list[Proposal]:
        changes: list[tuple[str, str]] = []
        said: list[str] = []
        evidence: list[str] = []
        if "cudnn" in by_key and by_key["cudnn"].value != variant.cudnn:
            changes.append(("cudnn", by_key["cudnn"].toml()))
            said.append(f"cudnn {variant.cudnn} -> {by_key['cudnn'].value}")
            evidence.append(by_key["cudnn"].evidence)
        if "arch_list" in by_key and by_key["arch_list"].value != variant.arch_list:
            changes.append(("arch_list", by_key["arch_list"].toml()))
            said.append(f"arch_list {_toml(variant.arch_list)} -> {by_key['arch_list'].toml()}")
            evidence.append(by_key["arch_list"].evidence)
        complete = "arch_list" in by_key and "cudnn" in by_key
        if complete and (changes or not variant.verified or not variant.evidence):
            # Every fact of the variant was just read from its wheel: it is verified now.
            changes += [
                ("verified", "true"),
                ("evidence", _quote(_variant_evidence(by_key))),
            ]
            if not variant.verified or said:
                # Old notes may describe the unverified or corrected facts.
                changes.append(("notes", _quote(_VERIFIED_NOTE)))
            if not said:
                said.append("verified from the wheel")
        if not changes:
            return []
        return [
            Proposal(
                f"pytorch {key} {variant.tag}: " + "; ".join(said),
                tuple(evidence or [f.evidence for f in by_key.values()]),
                _set_variant(key, variant.cuda, changes),
            )
        ]

    # -- TensorFlow ---------------------------------------------------------------------------

    def _tensorflow(self) -> list[Proposal]:
        found = self._releases("tensorflow")
        oldest = min(versions.pep440(r.version) for r in self.matrix.tensorflow)
        rows = {versions.pep440(r.version).release[:2]: r for r in self.matrix.tensorflow}
        out: list[Proposal] = []
        for minor, newest in sorted(self._newest_per_minor(found, oldest).items()):
            if newest not in found:
                continue
            _facts, fields = self._facts(found[newest], fatbins=False)
            out += self._tf_release(rows.get(minor), str(newest), {f.key: f for f in fields})
        return out

    def _tf_release(
        self, row: TensorflowRelease | None, version: str, by_key: dict[str, Field]
    ) -> list[Proposal]:
        python = by_key["python"]
        wanted = {"python": python}
        for name in ("cuda", "cudnn"):
            if name in by_key:
                wanted[name] = by_key[name]
        evidence = tuple(f.evidence for f in wanted.values())
        if row is None:
            if "cuda" not in wanted or "cudnn" not in wanted:
                return [
                    Proposal(
                        f"tensorflow {version}: add the release; not written: its wheel pins "
                        "no CUDA or cuDNN (no [and-cuda] extra)",
                        evidence,
                        None,
                    )
                ]
            lines = [
                "[[tensorflow]]",
                f'version = "{version}"',
                f"python = {python.toml()}",
                f"cuda = {wanted['cuda'].toml()}",
                f"cudnn = {wanted['cudnn'].toml()}",
                f'pip = "tensorflow[and-cuda]=={version}"',
                f'source = "{self._project_url("tensorflow")} (read by gpudoctor matrix update)"',
                f"evidence = {_quote('; '.join(evidence))}",
            ]
            return [
                Proposal(
                    f"tensorflow {version}: add the release",
                    evidence,
                    lambda text: _insert_release(text, "tensorflow", version, lines),
                )
            ]
        changes: list[tuple[str, str]] = []
        said: list[str] = []
        if versions.pep440(row.version) < versions.pep440(version):
            changes += [("version", f'"{version}"'), ("pip", _quote(_repin(row.pip, version)))]
            said.append(f"the index has {version}")
        for name, read in wanted.items():
            current = getattr(row, name)
            if read.value != current:
                changes.append((name, read.toml()))
                said.append(f"{name} {_show(current)} -> {read.toml()}")
        complete = "cuda" in wanted and "cudnn" in wanted
        if not row.verified and complete:
            # Every fact of the row was just read from its wheel: it is verified now.
            changes += [("verified", "true"), ("notes", _quote(_VERIFIED_TF))]
            said.append("verified from the wheel")
        if not changes and (row.evidence or not row.verified):
            return []
        if not said:
            said.append("record the evidence of its verified facts")
        changes.append(("evidence", _quote("; ".join(evidence))))
        return [
            Proposal(
                f"tensorflow {row.version}: " + "; ".join(said),
                evidence,
                _set_row("tensorflow", row.version, changes),
            )
        ]

    # -- helpers ------------------------------------------------------------------------------

    def _project_url(self, project: str) -> str:
        return index.project_url(self.index_url, project)

    def _wheel_url(self, facts: WheelFacts) -> str:
        return url_without_credentials(self._urls.get(facts.filename, self._project_url("torch")))


def _variant_evidence(by_key: dict[str, Field]) -> str:
    return "; ".join(by_key[k].evidence for k in ("cuda", "cudnn", "arch_list") if k in by_key)


def _tag(cuda: str) -> str:
    return "cu" + cuda.replace(".", "")


def _toml(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"


def _show(value: object) -> str:
    return _toml(value) if isinstance(value, tuple) else f'"{value}"'


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _repin(pip: str, version: str) -> str:
    name = pip.split("==", maxsplit=1)[0]
    return f"{name}=={version}"


def _set_row(table: str, version: str, changes: list[tuple[str, str]]) -> Edit:
    def apply(lines: list[str]) -> list[str]:
        current = version
        for key, value in changes:
            row = edit.find_row(lines, table, "version", current)
            if row is None:
                return lines
            lines = edit.set_key(lines, row, key, value)
            if key == "version":
                current = value.strip('"')
        return lines

    return apply


def _set_variant(version: str, cuda: str, changes: list[tuple[str, str]]) -> Edit:
    def apply(lines: list[str]) -> list[str]:
        for key, value in changes:
            row = edit.find_row(lines, "pytorch", "version", version)
            variant = row and edit.find_variant(lines, row, "cuda", cuda)
            if not variant:
                return lines
            lines = edit.set_key(lines, variant, key, value)
        return lines

    return apply


def _add_variant(version: str, block: list[str]) -> Edit:
    def apply(lines: list[str]) -> list[str]:
        row = edit.find_row(lines, "pytorch", "version", version)
        if row is None:
            return lines
        return edit.insert_after(lines, edit.row_extent(lines, row), block)

    return apply


def _insert_release(lines: list[str], table: str, version: str, block: list[str]) -> list[str]:
    """After the newest row older than `version` (rows run oldest to newest)."""
    rows = [b for b in edit.blocks(lines) if b.table == table]
    new = versions.pep440(version)
    before = [b for b in rows if versions.pep440(edit.value_of(lines, b, "version") or "0") < new]
    if before:
        return edit.insert_after(lines, edit.row_extent(lines, before[-1]), block)
    at = rows[0].start if rows else len(lines)
    return [*lines[:at], *block, "", *lines[at:]]
