"""Running the CI scripts as CI would: env-var inputs, output files, and a recording stand-in.

The stand-in `gpudoctor` (the scripts' only edge) records each call's arguments as a JSON line and
answers `snapshot -o FILE` with a prepared snapshot; the other tests run the real gpudoctor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import dumps

REPO = Path(__file__).resolve().parents[2]
ACTION_SCRIPT = REPO / "ci" / "github-action.sh"
GITLAB_TEMPLATE = REPO / "ci" / "gitlab-gpudoctor.yml"

STUB = f"""#!{sys.executable}
import json, os, shutil, sys
args = sys.argv[1:]
with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(args) + "\\n")
if args[:1] == ["snapshot"]:
    shutil.copy(os.environ["STUB_SNAPSHOT"], args[args.index("-o") + 1])
elif args[:1] == ["--version"]:
    print("gpudoctor (stand-in)")
elif args[:1] == ["check"]:
    if "-o" in args:
        open(args[args.index("-o") + 1], "w").write("report")
    sys.exit(int(os.environ.get("STUB_RC", "0")))
"""


def write_snapshot(path: Path, facts: HostFacts) -> Path:
    path.write_text(dumps(facts), encoding="utf-8")
    return path


@dataclass
class Stub:
    bin_dir: Path
    log: Path

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def checks(self) -> list[list[str]]:
        return [c for c in self.calls() if c[:1] == ["check"]]


def make_stub(tmp: Path, snapshot: Path) -> tuple[Stub, dict[str, str]]:
    bin_dir = tmp / "stub-bin"
    bin_dir.mkdir()
    exe = bin_dir / "gpudoctor"
    exe.write_text(STUB, encoding="utf-8")
    exe.chmod(0o755)
    log = tmp / "calls.jsonl"
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "STUB_LOG": str(log),
        "STUB_SNAPSHOT": str(snapshot),
    }
    return Stub(bin_dir, log), env


@dataclass
class ActionRun:
    rc: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def run_action(tmp: Path, env: dict[str, str], *args: str) -> ActionRun:
    """ci/github-action.sh with GitHub's files in `tmp` and INPUT_* from `env`."""
    out, summary = tmp / "github_output", tmp / "step_summary"
    out.write_text("", encoding="utf-8")
    summary.write_text("", encoding="utf-8")
    full = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp)),
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp),
        "GPUDOCTOR_PYTHON": sys.executable,
        **env,
    }
    done = subprocess.run(
        ["bash", str(ACTION_SCRIPT), *(args or ("check",))],
        env=full,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    outputs = parse_github_output(out.read_text(encoding="utf-8"))
    return ActionRun(
        done.returncode, done.stdout, done.stderr, outputs, summary.read_text(encoding="utf-8")
    )


def parse_github_output(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIM` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            else:
                raise AssertionError(f"unterminated {name}<<{delimiter}")
            outputs[name] = "\n".join(body)
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def gitlab_job() -> dict[str, object]:
    job: dict[str, object] = yaml.safe_load(GITLAB_TEMPLATE.read_text(encoding="utf-8"))[
        ".gpudoctor"
    ]
    return job


def run_gitlab(
    tmp: Path, env: dict[str, str], *, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The template's script under `sh` (dash here), with its variables as GitLab exports them."""
    job = gitlab_job()
    variables = {k: str(v) for k, v in dict(job["variables"]).items()}  # type: ignore[call-overload]
    script = "\n".join(job["script"])  # type: ignore[call-overload]
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp), **variables, **env}
    return subprocess.run(
        ["sh", "-c", script],
        env=full,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
