#!/usr/bin/env bash
# Install gpudoctor into the repository's own virtual environment (.venv; never the system
# Python, which Debian and Ubuntu mark externally managed) and run it: `gpudoctor check` by
# default, or the arguments given (`bash scripts/install.sh check --format json`).
# The venv lives on: `.venv/bin/gpudoctor` runs it again without reinstalling.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tool alone (`.`); the test suite asks for `.[dev]` in the same venv.
export GPUDOCTOR_INSTALL="${GPUDOCTOR_INSTALL:-.}"
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
if [ "$#" -eq 0 ]; then
    set -- check
fi
exec gpudoctor "$@"
