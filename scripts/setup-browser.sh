#!/usr/bin/env bash
# Installs Debian's Chromium for the headless end-to-end tests of `cavsim view`
# (test/integration/viz/). The browser cannot be downloaded by playwright here, so the tests drive
# /usr/bin/chromium through playwright-core. Idempotent: does nothing when chromium is present.
#   scripts/setup-browser.sh          (as root, or with sudo available)
set -euo pipefail

log() { echo "[setup-browser] $*" >&2; }

if [ -x /usr/bin/chromium ]; then
  log "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { log "must run as root (apt-get needs it)"; exit 1; }
  sudo_cmd=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
log "apt-get install chromium (takes a minute)"
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core
log "installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
