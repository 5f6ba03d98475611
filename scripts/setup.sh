#!/usr/bin/env bash
# Installs everything cavsim needs on Debian 12 and runs the head-on experiment emulated.
#   sudo bash scripts/setup.sh              install, build, then run scenarios/head-on-brake.yaml in Docker + ns-3
#   sudo bash scripts/setup.sh --deps-only  install and build only (what the test command uses)
# Idempotent: a second run only checks. Needs root (apt, dockerd, bridges, iptables).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[setup] $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "run as root: sudo bash scripts/setup.sh"
  exit 1
fi

# One apt-get update per machine is enough; the scripts below install only what is missing.
if [ ! -f /var/lib/apt/periodic/cavsim-updated ] ; then
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update
  mkdir -p /var/lib/apt/periodic && touch /var/lib/apt/periodic/cavsim-updated
fi
bash scripts/setup-ns3.sh
bash scripts/setup-docker.sh
bash scripts/setup-browser.sh
bash scripts/setup-tshark.sh

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund
fi
log "building cavsim"
npm run build --silent
log "compiling the ns-3 channel programs (cached)"
node --input-type=module -e "const m = await import('./dist/channel/ns3/builtin-programs.js'); for (const b of await m.compileBuiltinPrograms()) console.error('[setup]', b);"
bash scripts/build-base-image.sh
node dist/cli/main.js images

if [ "${1:-}" != "--deps-only" ]; then
  log "running the head-on experiment emulated (Docker + ns-3)"
  node dist/cli/main.js up scenarios/head-on-brake.yaml --runtime docker
fi
