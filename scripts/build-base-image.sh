#!/usr/bin/env bash
# Builds the local base image cavsim/base:bookworm from Debian packages (no container registry
# needed): debootstrap a minimal bookworm with Node.js, then `docker import` it. Skips when the
# image already exists. Run as root.
#   scripts/build-base-image.sh [TAG]       default TAG: cavsim/base:bookworm
# Env: CAVSIM_DEBIAN_MIRROR (optional mirror URL for debootstrap), CAVSIM_REBUILD_BASE=1 to force.
set -euo pipefail

tag="${1:-cavsim/base:bookworm}"
log() { echo "[build-base-image] $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "must run as root (debootstrap needs it; try: sudo $0)"
  exit 1
fi
if ! docker info >/dev/null 2>&1; then
  log "Docker engine not reachable; run scripts/setup-docker.sh first"
  exit 1
fi
if [ "${CAVSIM_REBUILD_BASE:-0}" != "1" ] && docker image inspect "$tag" >/dev/null 2>&1; then
  log "$tag already exists, skipping (CAVSIM_REBUILD_BASE=1 to rebuild)"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { log "debootstrap missing; run scripts/setup-docker.sh first"; exit 1; }

rootfs="$(mktemp -d /tmp/cavsim-base.XXXXXX)"
cleanup() { rm -rf --one-file-system "$rootfs"; }
trap cleanup EXIT

started=$(date +%s)
log "debootstrap bookworm into $rootfs (takes about half a minute)"
mirror_args=()
[ -n "${CAVSIM_DEBIAN_MIRROR:-}" ] && mirror_args=("$CAVSIM_DEBIAN_MIRROR")
debootstrap --variant=minbase --include=nodejs,iproute2,iptables,ca-certificates \
  bookworm "$rootfs" "${mirror_args[@]}"

# Smaller image: package lists and caches are not needed at run time.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

log "importing into Docker as $tag"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  - "$tag" >/dev/null

log "built $tag in $(( $(date +%s) - started )) s ($(docker run --rm "$tag" node --version))"
