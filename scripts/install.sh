#!/usr/bin/env bash
# Install gpudoctor into the repository's own virtual environment (.venv; never the system
# Python, which Debian and Ubuntu mark externally managed), put the `gpudoctor` command on PATH
# (a link in ~/.local/bin, or GPUDOCTOR_BIN_DIR) and run it: `gpudoctor check` by default, or the
# arguments given (`bash scripts/install.sh check --format json`).
# Python: the default python3 when it is 3.9 or newer, else the newest python3.9 ... python3.14
# on PATH (PYTHON=... names one); with none, it says what to install (scripts/venv.sh).
# The venv lives on: `gpudoctor` (or `.venv/bin/gpudoctor`) runs it again without reinstalling.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'install: %s\n' "$*" >&2; }

# The tool alone (`.`); the test suite asks for `.[dev]` in the same venv.
export GPUDOCTOR_INSTALL="${GPUDOCTOR_INSTALL:-.}"
# shellcheck source=scripts/venv.sh
source scripts/venv.sh

# `gpudoctor` on PATH: a link to the venv's command in the user's own bin folder. Something else
# already there (a pipx install, another clone's link) is left alone.
bin_dir="${GPUDOCTOR_BIN_DIR:-$HOME/.local/bin}"
target="$GPUDOCTOR_VENV/bin/gpudoctor"
link="$bin_dir/gpudoctor"
if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then
    : # made by an earlier run
elif [ -e "$link" ]; then
    say "$link already exists and is not a link to this clone's gpudoctor: left as it is"
    say "  run $target, or remove $link and run this again"
elif mkdir -p "$bin_dir" 2>/dev/null && ln -sfn "$target" "$link" 2>/dev/null; then
    # -f replaces only a dangling link here (an existing file was handled above)
    say "gpudoctor is on PATH as $link (a link to $target)"
else
    say "could not create $link: run $target, or link it into a folder on PATH yourself"
fi
case ":${PATH}:" in
    *":$bin_dir:"*) ;;
    *)
        say "$bin_dir is not on your PATH; add it for this shell with:"
        say "  export PATH=\"$bin_dir:\$PATH\""
        if [ "$bin_dir" = "$HOME/.local/bin" ]; then
            say "  (Debian's and Ubuntu's ~/.profile add ~/.local/bin at the next login when it exists)"
        fi
        ;;
esac

if [ "$#" -eq 0 ]; then
    set -- check
fi
exec gpudoctor "$@"
