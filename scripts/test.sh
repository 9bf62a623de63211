#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs gpudoctor with its test extras, makes a
# Docker Engine reachable (docker tests build real images), then runs pytest.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m slow` for the opt-in slow tests.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install -q --disable-pip-version-check -e '.[dev]'
bash scripts/ensure-docker.sh || echo "test.sh: no Docker Engine; docker tests will be skipped" >&2

# pytest exits 5 when no test ran: let that fail the run (it means the suite went missing).
python3 -m pytest "$@"
