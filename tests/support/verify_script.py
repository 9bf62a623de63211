"""templates/verify_image.py run for real, in a child of this interpreter, as if in an image
that holds only `site`.

The script reports what its interpreter can import and which CUDA libraries lie in the system's
folders and in every sys.path entry's wheel folders: right inside an image, where only the
intended framework is installed, but on a host with a real torch, jax or nvidia-* wheels in
site-packages (or a CUDA toolkit under /usr/local) it reports the host's. So the child runs
with `-S` (no site module: this interpreter's site-packages and user site stay off sys.path;
the script needs the standard library only) and PYTHONPATH=`site`, and its SYSTEM_GLOBS are
emptied before its main() runs: what it reports is `site`'s alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gpudoctor.resources import templates_dir
from gpudoctor.verify_report import MARKER

_MAIN = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('verify_image', sys.argv[1])\n"
    "script = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(script)\n"
    "script.SYSTEM_GLOBS = ()  # this host's /usr/local/cuda* and multiarch folders\n"
    "sys.exit(script.main(sys.argv[2:]))\n"
)


def verify_report(site: Path, *args: str) -> dict[str, object]:
    """The report templates/verify_image.py prints for `args` with only `site` importable."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", _MAIN, str(templates_dir() / "verify_image.py"), *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site)},
        timeout=60,
        check=True,
    )
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith(MARKER), done.stdout
    report: dict[str, object] = json.loads(line[len(MARKER) :])
    return report
