#!/usr/bin/env bash
# Installs and starts a Docker engine on Debian 12 (no systemd assumed). Idempotent; run as root.
#   scripts/setup-docker.sh            install packages if missing, start dockerd if not answering
# Env: CAVSIM_DOCKERD_TIMEOUT (seconds to wait for the engine, default 60)
set -euo pipefail

timeout_s="${CAVSIM_DOCKERD_TIMEOUT:-60}"
log() { echo "[setup-docker] $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "must run as root (try: sudo $0)"
  exit 1
fi

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v iptables >/dev/null 2>&1 || missing+=(iptables)
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing docker.io debootstrap iptables (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y docker.io debootstrap iptables
else
  log "docker.io, debootstrap and iptables already installed"
fi

if docker info >/dev/null 2>&1; then
  log "Docker engine already answering"
  exit 0
fi

log "starting dockerd in the background (log: /var/log/cavsim-dockerd.log)"
nohup dockerd >/var/log/cavsim-dockerd.log 2>&1 &
dockerd_pid=$!

for ((i = 0; i < timeout_s * 2; i++)); do
  if docker info >/dev/null 2>&1; then
    log "Docker engine answering (dockerd pid ${dockerd_pid}) after ~$((i / 2)) s"
    exit 0
  fi
  if ! kill -0 "$dockerd_pid" 2>/dev/null; then
    log "dockerd exited early; last lines of /var/log/cavsim-dockerd.log:"
    tail -n 20 /var/log/cavsim-dockerd.log >&2 || true
    exit 1
  fi
  sleep 0.5
done

log "dockerd did not answer within ${timeout_s} s; last lines of /var/log/cavsim-dockerd.log:"
tail -n 20 /var/log/cavsim-dockerd.log >&2 || true
exit 1
