#!/usr/bin/env bash
# Installs what cavsim's emulated network needs on Debian 12 and repairs ns-3's tap-creator path.
# Idempotent: running it again changes nothing. Must run as root.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup-ns3.sh: run as root (sudo $0)" >&2
  exit 1
fi

packages=(libns3-dev ns3 libgsl-dev g++ pkg-config iptables iproute2 binutils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"; then
    apt-get -o DPkg::Lock::Timeout=600 update
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
  fi
fi

# TapBridge execs the tap-creator helper at the path compiled into libns3-tap-bridge, but Debian
# installs the helper elsewhere. Link the compiled-in path to the installed helper.
lib=$(find /usr/lib /usr/lib64 -name 'libns3*-tap-bridge*.so*' -type f 2>/dev/null | head -n1 || true)
if [ -z "$lib" ]; then
  echo "setup-ns3.sh: libns3 tap-bridge library not found after install" >&2
  exit 1
fi
expected=$(strings "$lib" | grep -E '^/.*tap-creator$' | head -n1 || true)
installed=$(find /usr/libexec /usr/lib /usr/bin -name '*tap-creator' \( -type f -o -type l \) 2>/dev/null \
  | grep -v -F "${expected:-/nonexistent}" | head -n1 || true)
if [ -n "$expected" ] && [ ! -e "$expected" ]; then
  if [ -z "$installed" ]; then
    echo "setup-ns3.sh: tap-creator helper not found (expected at $expected)" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$expected")"
  ln -sfn "$installed" "$expected"
  echo "linked $expected -> $installed"
fi

# iptables must see bridged traffic to apply the rules cavsim installs inside namespaces; the host
# rules are harmless when br_netfilter is off.
modprobe br_netfilter 2>/dev/null || true

echo "ns-3 $(pkg-config --modversion ns3-core 2>/dev/null || echo '?') ready; tap-creator: ${expected:-none needed}"
