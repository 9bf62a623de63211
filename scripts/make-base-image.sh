#!/usr/bin/env bash
# Make the local stand-in base image the docker tests build on, once (cached by tag).
#
# No registry is reachable from the test machines, so `nvidia/cuda:*` cannot be pulled. The
# stand-in is a Debian bookworm minbase root file system (debootstrap from Debian's package
# mirror) with Python 3.11 and its venv module, imported with `docker import`. It plays the part
# of a CUDA base image for gpudoctor's real template: the template skips its Python install step
# when the base already has the requested Python with venv support.
#
# Usage: scripts/make-base-image.sh [TAG]     (default gpudoctor-test/base:bookworm-py3.11-v1)
# Bump the -vN suffix in the tag (here and in tests/builder/conftest.py) when the recipe changes.
set -euo pipefail

TAG="${1:-gpudoctor-test/base:bookworm-py3.11-v1}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { printf 'make-base-image: %s\n' "$*" >&2; }

if docker image inspect "$TAG" >/dev/null 2>&1; then
    log "$TAG exists; nothing to do"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    log "debootstrap needs root; run as root or build $TAG yourself"
    exit 3
fi
if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap from Debian's packages"
    # A fresh machine may have no package lists yet (`apt-get install` then finds nothing).
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

ROOTFS="$(mktemp -d /tmp/gpudoctor-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT

log "debootstrap bookworm into $ROOTFS (about a minute)"
debootstrap --variant=minbase --include=python3.11,ca-certificates \
    bookworm "$ROOTFS" "$MIRROR" >/tmp/gpudoctor-debootstrap.log 2>&1 || {
    tail -n 20 /tmp/gpudoctor-debootstrap.log >&2
    exit 1
}
# python3.11-venv brings ensurepip and the bundled pip wheel, so `python3.11 -m venv` works
# offline. Installed with apt inside the chroot: passed to debootstrap's --include it fails to
# configure in debootstrap's base phase.
chroot "$ROOTFS" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
    'apt-get update -qq && apt-get install -y -qq --no-install-recommends python3.11-venv' \
    >>/tmp/gpudoctor-debootstrap.log 2>&1 || {
    tail -n 20 /tmp/gpudoctor-debootstrap.log >&2
    exit 1
}
# Drop what an image does not need: package caches and lists, docs, man pages.
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
    "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/*

log "importing as $TAG"
tar -C "$ROOTFS" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    --message "gpudoctor test stand-in base: debian bookworm minbase + python3.11" \
    - "$TAG" >/dev/null
log "done: $(docker image inspect --format '{{.Id}} {{.Size}}' "$TAG")"
