#!/usr/bin/env bash
# Installs Debian's tshark (Wireshark's command-line decoder), which the V2X tests use as an
# independent decoder of the GeoNetworking/BTP/CAM frames in a run's v2v.pcap
# (test/integration/v2x/). Idempotent: does nothing when tshark is present.
#   scripts/setup-tshark.sh          (as root, or with sudo available)
set -euo pipefail

log() { echo "[setup-tshark] $*" >&2; }

if command -v tshark >/dev/null 2>&1; then
  log "tshark already installed: $(tshark --version 2>/dev/null | head -1)"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { log "must run as root (apt-get needs it)"; exit 1; }
  sudo_cmd=(sudo)
fi

# wireshark-common asks whether non-root users may capture; noninteractive keeps its default (no).
export DEBIAN_FRONTEND=noninteractive
log "apt-get install tshark"
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq tshark || {
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq tshark
}
log "installed: $(tshark --version 2>/dev/null | head -1)"
