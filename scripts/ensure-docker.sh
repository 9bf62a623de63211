#!/usr/bin/env bash
# Make a Docker Engine reachable for the test suite, idempotently:
# install docker.io from Debian's packages when dockerd is absent, start dockerd when it does not
# answer, and never stop or restart a daemon this script did not start.
set -euo pipefail

log() { printf 'ensure-docker: %s\n' "$*" >&2; }

if docker info >/dev/null 2>&1; then
    log "Docker Engine already reachable"
    exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        log "dockerd is not installed and this is not root: install docker.io, then rerun"
        exit 3
    fi
    log "installing docker.io from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq docker.io >/dev/null
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
    log "starting dockerd in the background (log: /var/log/gpudoctor-dockerd.log)"
    # setsid: the daemon outlives this script (and the test run), like a service would.
    setsid dockerd >/var/log/gpudoctor-dockerd.log 2>&1 < /dev/null &
fi

for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then
        log "Docker Engine reachable"
        exit 0
    fi
    sleep 1
done
log "dockerd did not answer within 60 s; see /var/log/gpudoctor-dockerd.log"
tail -n 20 /var/log/gpudoctor-dockerd.log >&2 || true
exit 3
