#!/usr/bin/env bash
# N local "hosts" for cavsim's multi-host tests and demos (issue 53, docs/multi-host.md): each a
# privileged container running its own Docker engine (the machine's Debian dockerd, copied into an
# image built FROM the local base image, no registry), reached over TCP with TLS on a private Docker
# network. Writes a hosts file that `src/host/hosts-file/` accepts. Needs root and a Docker engine.
#
#   sudo bash scripts/local-hosts.sh start 2          # progress on stderr; on stdout:
#   export CAVSIM_HOSTS=/var/lib/cavsim-hosts/hosts.yaml
#   sudo bash scripts/local-hosts.sh list             # NAME ENGINE STATUS, one host a line
#   sudo bash scripts/local-hosts.sh exec cavsim-host-1 ip -br link
#   sudo bash scripts/local-hosts.sh stop             # removes every container, volume, network and file it made
#
# Everything it makes is named cavsim-host* and labelled cavsim.local-hosts: containers
# cavsim-host-<n>, volumes cavsim-host-<n>-docker (/var/lib/docker: overlay2 cannot sit on the
# container's overlay), network and bridge cavsim-hosts (10.219.0.0/24; cavsim runs use 10.210-10.214),
# the state folder with the hosts file and TLS files. The image cavsim-host/engine:bookworm is kept
# (rebuilt when the machine's docker.io, containerd or runc change); `docker image rm` it to drop it.
# Env: CAVSIM_LOCAL_HOSTS_DIR (state folder, default /var/lib/cavsim-hosts), CAVSIM_BASE_IMAGE.
set -Eeuo pipefail

DIR="${CAVSIM_LOCAL_HOSTS_DIR:-/var/lib/cavsim-hosts}"
FILE="$DIR/hosts.yaml"
BASE="${CAVSIM_BASE_IMAGE:-cavsim/base:bookworm}"
IMAGE="cavsim-host/engine:bookworm"
NETWORK="cavsim-hosts"
SUBNET="10.219.0"
PORT=2376
LABEL="cavsim.local-hosts"
MAX_HOSTS=8
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

say() { echo "[local-hosts] $*" >&2; }
die() { say "$*"; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo bash $0 $*)"; }

need_engine() {
  docker info >/dev/null 2>&1 && return
  say "Docker engine not answering: starting it with scripts/setup-docker.sh"
  bash "$HERE/setup-docker.sh"
}

# Our containers, by label and name prefix (never anything else).
ours() { docker ps -a --filter "label=$LABEL" --format '{{.Names}}' | grep -E '^cavsim-host-[0-9]+$' | sort -V || true; }

# --- the host image ------------------------------------------------------------------------------

# The host image: the base plus the engine's binaries and whichever of their libraries the base lacks.
# shellcheck disable=SC2016
DOCKERFILE='ARG BASE
FROM ${BASE}
ARG LIBDIR
COPY bin/ /usr/local/bin/
COPY lib/ /tmp/cavsim-host-lib/
RUN for f in /tmp/cavsim-host-lib/*; do [ -e "$LIBDIR/${f##*/}" ] || cp "$f" "$LIBDIR/"; done \
 && rm -rf /tmp/cavsim-host-lib && ldconfig && dockerd --version && runc --version >/dev/null
ENTRYPOINT ["/usr/local/bin/cavsim-host-init"]
CMD ["dockerd"]'
# The container is given every capability the machine's engine has, but is not --privileged (see
# host_security_args): its /sys and cgroup hierarchies come read-only, which dockerd cannot use.
HOST_INIT='#!/bin/sh
set -e
mount -o remount,rw /sys
for d in /sys/fs/cgroup/*/; do mount -o remount,rw,bind "$d"; done
exec "$@"'
ENGINE_BINARIES=(/usr/sbin/dockerd /usr/sbin/docker-proxy /usr/bin/containerd /usr/bin/containerd-shim-runc-v2 /usr/sbin/runc /usr/bin/docker)

build_image() {
  command -v dockerd >/dev/null || bash "$HERE/setup-docker.sh"
  if ! docker image inspect "$BASE" >/dev/null 2>&1; then
    say "base image $BASE missing: building it with scripts/build-base-image.sh"
    bash "$HERE/build-base-image.sh" "$BASE"
  fi
  local inputs
  inputs="$( (dpkg-query -W docker.io containerd runc tini 2>/dev/null; docker image inspect --format '{{.Id}}' "$BASE"; echo "$DOCKERFILE$HOST_INIT") | sha256sum | cut -c1-16)"
  if [ "$(docker image inspect --format "{{index .Config.Labels \"$LABEL.inputs\"}}" "$IMAGE" 2>/dev/null || true)" = "$inputs" ]; then
    return
  fi
  say "building $IMAGE from $BASE and this machine's Docker engine binaries"
  local ctx libdir started
  started=$(date +%s)
  ctx="$(mktemp -d /tmp/cavsim-host-image.XXXXXX)"
  mkdir -p "$ctx/bin" "$ctx/lib"
  cp "${ENGINE_BINARIES[@]}" "$ctx/bin/"
  cp -L /usr/bin/docker-init "$ctx/bin/docker-init"
  # The shared libraries they load; the Dockerfile adds only those the base lacks.
  ldd "${ENGINE_BINARIES[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u | while read -r lib; do cp -L "$lib" "$ctx/lib/"; done
  libdir="$(dirname "$(readlink -f "$(ldd /usr/sbin/dockerd | awk '$1 ~ /^libc\.so/ {print $3}')")")"
  printf '%s\n' "$DOCKERFILE" >"$ctx/Dockerfile"
  printf '%s\n' "$HOST_INIT" >"$ctx/bin/cavsim-host-init"
  chmod 755 "$ctx/bin/cavsim-host-init"
  DOCKER_BUILDKIT=0 docker build -q --build-arg "BASE=$BASE" --build-arg "LIBDIR=$libdir" \
    --label "$LABEL.inputs=$inputs" -t "$IMAGE" "$ctx" >/dev/null || { rm -rf --one-file-system "$ctx"; return 1; }
  rm -rf --one-file-system "$ctx"
  say "built $IMAGE in $(( $(date +%s) - started )) s"
}

# `--privileged` asks for every capability; an engine whose own bounding set lacks one (this
# project's VMs lack CAP_SYS_RESOURCE) then fails with "unable to apply caps". So: all capabilities
# Docker knows less those the engine lacks, no seccomp, AppArmor or masked /proc paths, and the
# a cgroup namespace of its own (its init remounts /sys and the cgroups rw for dockerd).
DOCKER_CAPS=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE
  NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT
  SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE
  AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ)

host_security_args() {
  local pid bnd i
  echo --cap-add=ALL
  pid="$(pgrep -xo dockerd || true)"
  [ -n "$pid" ] || return 0
  bnd="$((16#$(awk '/^CapBnd:/ {print $2}' "/proc/$pid/status")))"
  for i in "${!DOCKER_CAPS[@]}"; do
    (( (bnd >> i) & 1 )) || echo "--cap-drop=${DOCKER_CAPS[$i]}"
  done
  printf '%s\n' --security-opt=seccomp=unconfined --security-opt=apparmor=unconfined --security-opt=systempaths=unconfined
}

# --- TLS: one CA, a server certificate per host (its address as subject name), one client ---------

make_tls() {
  local n="$1" i
  mkdir -p "$DIR/tls"
  chmod 700 "$DIR"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=cavsim local hosts CA" \
    -keyout "$DIR/tls/ca-key.pem" -out "$DIR/tls/ca.pem" 2>/dev/null
  sign "$DIR/tls/key.pem" "$DIR/tls/cert.pem" "/CN=cavsim client" "extendedKeyUsage=clientAuth"
  for ((i = 1; i <= n; i++)); do
    mkdir -p "$DIR/cavsim-host-$i"
    cp "$DIR/tls/ca.pem" "$DIR/cavsim-host-$i/ca.pem"
    sign "$DIR/cavsim-host-$i/server-key.pem" "$DIR/cavsim-host-$i/server-cert.pem" "/CN=cavsim-host-$i" \
      "extendedKeyUsage=serverAuth
subjectAltName=IP:$SUBNET.$((10 + i)),DNS:cavsim-host-$i,IP:127.0.0.1"
  done
}

sign() {
  local key="$1" cert="$2" subject="$3" ext="$4"
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$key" -out "$cert.csr" 2>/dev/null
  openssl x509 -req -in "$cert.csr" -CA "$DIR/tls/ca.pem" -CAkey "$DIR/tls/ca-key.pem" -CAcreateserial -days 7 \
    -extfile <(printf '%s\n' "$ext") -out "$cert" 2>/dev/null
  rm -f "$cert.csr"
}

# --- start / stop / list / exec ------------------------------------------------------------------

print_export() { echo "export CAVSIM_HOSTS=$FILE"; }

start() {
  local n="${1:-}"
  [[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le "$MAX_HOSTS" ] || die "start needs a number of hosts from 1 to $MAX_HOSTS, e.g. start 2"
  need_engine
  local running
  running="$(ours)"
  if [ -n "$running" ]; then
    say "already started: $(echo "$running" | wc -l) hosts ($(echo "$running" | paste -sd ' ')); stop first for another number"
    [ -f "$FILE" ] || die "but $FILE is missing: run stop, then start"
    print_export
    return
  fi
  local started i
  started=$(date +%s)
  trap 'say "start failed: removing what it made"; stop >/dev/null 2>&1 || true' ERR
  build_image
  remove_files
  mkdir -p "$DIR"
  make_tls "$n"
  docker network create --driver bridge --subnet "$SUBNET.0/24" --gateway "$SUBNET.1" \
    -o com.docker.network.bridge.name="$NETWORK" --label "$LABEL=1" "$NETWORK" >/dev/null
  local security
  mapfile -t security < <(host_security_args)
  for ((i = 1; i <= n; i++)); do
    local name="cavsim-host-$i" ip="$SUBNET.$((10 + i))"
    docker volume create --label "$LABEL=1" "$name-docker" >/dev/null
    docker run -d --name "$name" --hostname "$name" --label "$LABEL=1" --label "$LABEL.engine=tcp://$ip:$PORT" \
      "${security[@]}" --cgroupns private --init --network "$NETWORK" --ip "$ip" \
      -v "$name-docker:/var/lib/docker" -v "$DIR/$name:/etc/cavsim-host:ro" \
      "$IMAGE" dockerd -H unix:///var/run/docker.sock -H "tcp://0.0.0.0:$PORT" --tlsverify \
      --tlscacert /etc/cavsim-host/ca.pem --tlscert /etc/cavsim-host/server-cert.pem --tlskey /etc/cavsim-host/server-key.pem \
      >/dev/null
  done
  for ((i = 1; i <= n; i++)); do wait_engine "cavsim-host-$i" "$SUBNET.$((10 + i))"; done
  write_hosts_file "$n"
  trap - ERR
  say "up: $n hosts in $(( $(date +%s) - started )) s; hosts file $FILE"
  print_export
}

wait_engine() {
  local name="$1" ip="$2" t
  for ((t = 0; t < 120; t++)); do
    if docker --host "tcp://$ip:$PORT" --tlsverify --tlscacert "$DIR/tls/ca.pem" --tlscert "$DIR/tls/cert.pem" \
      --tlskey "$DIR/tls/key.pem" version --format '{{.Server.Version}}' >/dev/null 2>&1; then
      say "$name: engine answering on tcp://$ip:$PORT (TLS)"
      return
    fi
    [ "$(docker inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" = true ] || break
    sleep 0.5
  done
  say "$name: its engine did not answer; last lines of its log:"
  docker logs --tail 20 "$name" >&2 2>&1 || true
  return 1
}

write_hosts_file() {
  local n="$1" i
  {
    echo "# Written by scripts/local-hosts.sh: $n local hosts (docs/multi-host.md). Paths are relative to this file."
    echo "hosts:"
    for ((i = 1; i <= n; i++)); do
      echo "  - name: cavsim-host-$i"
      echo "    engine: tcp://$SUBNET.$((10 + i)):$PORT"
      echo "    tls: { ca: tls/ca.pem, cert: tls/cert.pem, key: tls/key.pem }"
    done
  } >"$FILE"
}

stop() {
  need_engine
  local names
  names="$(ours)"
  if [ -n "$names" ]; then
    # shellcheck disable=SC2086
    docker rm -f $names >/dev/null
    say "removed $(echo "$names" | paste -sd ' ')"
  fi
  docker volume ls -q --filter "label=$LABEL" | { grep -E '^cavsim-host-[0-9]+-docker$' || true; } | xargs -r docker volume rm >/dev/null
  docker network ls --filter "label=$LABEL" --format '{{.Name}}' | { grep -x "$NETWORK" || true; } | xargs -r docker network rm >/dev/null
  remove_files
  [ -n "$names" ] && say "stopped" || say "not started (nothing to remove)"
}

# Only the files start writes: the hosts file, the TLS folder, one folder per host; then the folder if empty.
remove_files() {
  [ -d "$DIR" ] || return 0
  rm -rf "$DIR/tls" "$DIR"/cavsim-host-* "$FILE"
  rmdir "$DIR" 2>/dev/null || say "kept $DIR: it holds files local-hosts.sh did not make"
}

list() {
  docker ps -a --filter "label=$LABEL" --format "{{.Names}}\t{{.Label \"$LABEL.engine\"}}\t{{.Status}}" | grep -E '^cavsim-host-[0-9]+\s' | sort -V || true
}

exec_in() {
  local name="${1:-}"
  shift || true
  [ -n "$name" ] && [ $# -gt 0 ] || die "usage: $0 exec HOST CMD... (HOST as list prints it, e.g. cavsim-host-1)"
  ours | grep -qx -- "$name" || die "$name is not a local host; $( [ -n "$(ours)" ] && echo "these are: $(ours | paste -sd ' ')" || echo "none is started (start N)")"
  local tty=()
  [ -t 0 ] && [ -t 1 ] && tty=(-it)
  exec docker exec "${tty[@]}" "$name" "$@"
}

case "${1:-}" in
  start) need_root start; start "${2:-}" ;;
  stop) need_root stop; stop ;;
  list) need_root list; list ;;
  exec) need_root exec; shift; exec_in "$@" ;;
  *) echo "usage: $0 start N | stop | list | exec HOST CMD..." >&2; exit 2 ;;
esac
