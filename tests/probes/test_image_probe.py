"""probe_image reads a label-less image by running its snippet with the image's python3: here a
local `python3 -I` stands in for `docker run` (the engine edge), over a folder that holds what
the image would (a torch package, a tensorflow dist-info, nothing). No outcome may carry a
Python exception's class name, and none may raise."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpudoctor.docker.engine import ImageInfo, RunResult
from gpudoctor.probes.image import probe_image


@dataclass
class LocalEngine:
    """Runs the probe command with this machine's Python over `site`, as the image's would."""

    site: Path
    result: RunResult | None = None  # a scripted result instead of running

    def inspect(self, image: str) -> ImageInfo:
        return ImageInfo(id="sha256:" + "cd" * 32, tags=(image,), size=1, env=("A=1",))

    def run(self, image: str, command: Sequence[str], *, gpus: bool, timeout: float) -> RunResult:
        if self.result is not None:
            return self.result
        assert command[:2] == ["python3", "-c"]
        # -I: none of this machine's site-packages; the image's "site" goes first in sys.path.
        code = f"import sys; sys.path.insert(0, {str(self.site)!r}); exec({command[2]!r})"
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return RunResult(done.returncode, done.stdout, done.stderr)


def _probe(engine: LocalEngine) -> tuple[str | None, str | None, str | None, str | None]:
    facts = probe_image(engine, "img:1")  # type: ignore[arg-type]
    return facts.framework, facts.version, facts.cuda, facts.error


def test_an_image_without_a_framework_says_so_without_an_exception_name(tmp_path: Path) -> None:
    # (the stdlib finds no torch or tensorflow under an empty site)
    framework, version, _, error = _probe(LocalEngine(tmp_path))
    assert (framework, version, error) == (None, None, None)


def test_torch_is_read_from_its_version_file(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    torch.mkdir()
    (torch / "__init__.py").write_text("raise SystemExit('never imported')\n")
    (torch / "version.py").write_text("__version__ = '2.5.1+cu124'\ncuda = '12.4'\n")
    assert _probe(LocalEngine(tmp_path)) == ("pytorch", "2.5.1", "12.4", None)


def test_tensorflow_found_by_import_name_and_read_from_any_of_its_distributions(
    tmp_path: Path,
) -> None:
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "__init__.py").write_text("")
    dist = tmp_path / "tensorflow_cpu-2.16.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow-cpu\nVersion: 2.16.1\n")
    assert _probe(LocalEngine(tmp_path))[:2] == ("tensorflow", "2.16.1")


@pytest.mark.parametrize(
    ("result", "words"),
    [
        (RunResult(127, "", 'exec: "python3": executable file not found in $PATH'), "no python3"),
        (
            RunResult(
                1,
                "",
                "Traceback (most recent call last):\nModuleNotFoundError: No module "
                "named 'importlib.metadata'",
            ),
            "exited 1 without a report: No module named 'importlib.metadata'",
        ),
        (RunResult(0, "GPUDOCTOR-IMAGE {not json", ""), "unreadable report from the image"),
        (RunResult(0, "GPUDOCTOR-IMAGE [1, 2]", ""), "unreadable report from the image"),
    ],
)
def test_an_image_that_cannot_report_is_an_error_in_words(
    tmp_path: Path, result: RunResult, words: str
) -> None:
    _, _, _, error = _probe(LocalEngine(tmp_path, result))
    assert error is not None
    assert words in error
    assert "Error:" not in error
