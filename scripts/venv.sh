# Sourced by scripts/install.sh, scripts/test.sh and .ci/run: create (once) the repository's own
# virtual environment, install gpudoctor into it (with its `dev` extras unless GPUDOCTOR_INSTALL
# names another requirement, e.g. `.` for the tool alone; again only when pyproject.toml or that
# choice changed), and put its bin/ first on PATH (pytest, ruff, mypy and hadolint come from there).
#
# It never installs into the system Python: Debian 12 and Ubuntu 24.04 mark theirs as externally
# managed (PEP 668) and refuse `pip install` there. Set GPUDOCTOR_VENV to use another folder.
# shellcheck shell=bash

_venv_log() { printf 'venv: %s\n' "$*" >&2; }

GPUDOCTOR_VENV="${GPUDOCTOR_VENV:-$PWD/.venv}"
_python="${PYTHON:-python3}"

if ! command -v "$_python" >/dev/null 2>&1; then
    _venv_log "no $_python on PATH: install Python 3.9 or newer (apt-get install python3)"
    exit 1
fi
if ! "$_python" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
    _venv_log "$("$_python" -V 2>&1) is too old: gpudoctor needs Python 3.9 or newer"
    exit 1
fi

# Debian and Ubuntu ship `venv` without ensurepip unless python3-venv is installed.
if [ ! -x "$GPUDOCTOR_VENV/bin/pip" ] && ! "$_python" -c 'import ensurepip' >/dev/null 2>&1; then
    _pkg="python3-venv"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        _venv_log "python3 -m venv needs $_pkg: installing it with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$_pkg" >/dev/null
    else
        _venv_log "python3 -m venv needs the $_pkg package, and this is not root:"
        _venv_log "  sudo apt-get install $_pkg     (then run this again)"
        exit 1
    fi
fi

if [ ! -x "$GPUDOCTOR_VENV/bin/pip" ]; then
    _venv_log "creating $GPUDOCTOR_VENV"
    rm -rf "$GPUDOCTOR_VENV"  # a half-made one (venv without pip) would fail below
    "$_python" -m venv "$GPUDOCTOR_VENV"
fi

# Install when the venv is new, or pyproject.toml or the requirement changed since the last install.
_spec="${GPUDOCTOR_INSTALL:-.[dev]}"
_stamp="$GPUDOCTOR_VENV/.gpudoctor-installed"
_want="$(cksum < pyproject.toml) $_spec"
if [ ! -f "$_stamp" ] || [ "$(cat "$_stamp")" != "$_want" ]; then
    _venv_log "installing gpudoctor: pip install -e '$_spec'"
    "$GPUDOCTOR_VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$_spec"
    printf '%s\n' "$_want" > "$_stamp"
fi

export VIRTUAL_ENV="$GPUDOCTOR_VENV"
export PATH="$GPUDOCTOR_VENV/bin:$PATH"
unset _python _pkg _spec _stamp _want
