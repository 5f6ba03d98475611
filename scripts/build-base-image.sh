#!/usr/bin/env bash
# Builds the local base image cavsim/base:bookworm from Debian packages (no container registry
# needed): debootstrap a minimal bookworm with Node.js (cavsim's own containers) and Python 3
# (example vehicles in containers/examples/), then `docker import` it. The image carries a label
# with a hash of the package list: it is skipped when present with the same list and rebuilt when
# the list changed, so existing machines pick up a new package. Run as root.
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
# python3-minimal alone lacks json; libpython3.11-stdlib adds it (and the rest of the stdlib).
# iputils-ping and iperf3: to measure a kept run's channel (`cavsim up --keep`, then docker exec).
packages="nodejs,iproute2,iptables,ca-certificates,python3-minimal,libpython3.11-stdlib,iputils-ping,iperf3"
packages_label="cavsim.base-packages"
packages_hash="$(printf '%s' "$packages" | sha256sum | cut -c1-16)"

old_id="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
if [ -n "$old_id" ] && [ "${CAVSIM_REBUILD_BASE:-0}" != "1" ]; then
  have="$(docker image inspect --format "{{index .Config.Labels \"$packages_label\"}}" "$tag" 2>/dev/null || true)"
  if [ "$have" = "$packages_hash" ]; then
    log "$tag is up to date (packages $packages_hash), skipping (CAVSIM_REBUILD_BASE=1 to rebuild)"
    exit 0
  fi
  log "$tag has another package list (${have:-none} != $packages_hash): rebuilding"
fi
command -v debootstrap >/dev/null 2>&1 || { log "debootstrap missing; run scripts/setup-docker.sh first"; exit 1; }

rootfs="$(mktemp -d /tmp/cavsim-base.XXXXXX)"
cleanup() { rm -rf --one-file-system "$rootfs"; }
trap cleanup EXIT

started=$(date +%s)
log "debootstrap bookworm into $rootfs (takes about half a minute)"
mirror_args=()
[ -n "${CAVSIM_DEBIAN_MIRROR:-}" ] && mirror_args=("$CAVSIM_DEBIAN_MIRROR")
debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "${mirror_args[@]}"

# Smaller image: package lists and caches are not needed at run time.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

log "importing into Docker as $tag"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  --change "LABEL $packages_label=$packages_hash" \
  - "$tag" >/dev/null

versions="$(docker run --rm "$tag" sh -c 'echo "node $(node --version), $(python3 --version)"')"
log "built $tag in $(( $(date +%s) - started )) s ($versions)"

# The superseded base, now untagged, goes unless something still uses it: images built FROM it
# and containers keep it alive (docker refuses to remove it then, which is what we want).
new_id="$(docker image inspect --format '{{.Id}}' "$tag")"
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
  if docker image rm "$old_id" >/dev/null 2>&1; then log "removed the previous base $old_id"
  else log "kept the previous base $old_id (still used by an image or container)"; fi
fi
