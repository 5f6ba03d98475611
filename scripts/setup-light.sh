#!/usr/bin/env bash
# The light path: the simulated runtime only (virtual time, one process), with ns-3 in lock-step
# when ns-3 is installed. No Docker, no root to run; root only to install ns-3's packages.
#   bash scripts/setup-light.sh          install the Node packages, build, run the head-on experiment
#   sudo bash scripts/setup-light.sh     the same, installing ns-3's development packages first
# Idempotent. Needs Node.js 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[setup-light] $*" >&2; }

NS3_PACKAGES=(libns3-dev libgsl-dev g++ pkg-config)
ns3_present() { pkg-config --exists ns3-core ns3-network ns3-csma ns3-wifi ns3-mobility ns3-propagation gsl 2>/dev/null && command -v g++ >/dev/null; }

if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  log "Node.js 20 or newer is needed (Debian 12: the nodesource or nvm build); found: $(node --version 2>/dev/null || echo none)"
  exit 1
fi
if ! ns3_present; then
  if [ "$(id -u)" -eq 0 ]; then
    log "installing ns-3's development packages: ${NS3_PACKAGES[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${NS3_PACKAGES[@]}" \
      || { apt-get -o DPkg::Lock::Timeout=600 update && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${NS3_PACKAGES[@]}"; }
  else
    log "ns-3 is not installed: runs use the builtin csma and latency models (wifi-80211p needs ns-3)."
    log "for ns-3 in lock-step: sudo apt-get install ${NS3_PACKAGES[*]}  (or run this script with sudo)"
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund
fi
log "building cavsim"
npm run build --silent
if ns3_present; then
  log "compiling the ns-3 lock-step programs (cached)"
  node --input-type=module -e "const m = await import('./dist/channel/ns3/builtin-programs.js'); for (const b of await m.compileBuiltinPrograms()) console.error('[setup-light]', b);"
fi
log "running the head-on experiment in the simulated runtime"
node dist/cli/main.js up scenarios/head-on-brake.yaml --runtime sim
