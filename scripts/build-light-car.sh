#!/usr/bin/env bash
# Builds the light-car vehicle program (containers/vehicle/light-car, C) into dist/light-car/,
# static so that it runs in any vehicle image. Part of `npm run build`. Without a C compiler (the
# simulated runtime's light set-up needs none) it says so and builds nothing: emulated runs then
# give every car the Node vehicle program.
set -euo pipefail
cd "$(dirname "$0")/.."
src=containers/vehicle/light-car
out=dist/light-car/cavsim-light-car
if ! command -v cc >/dev/null; then
  echo "[build-light-car] no C compiler (cc): emulated cars will all run the Node vehicle program; scripts/setup.sh installs one" >&2
  rm -f "$out"
  exit 0
fi
mkdir -p "$(dirname "$out")"
cc -O2 -std=gnu11 -Wall -Wextra -Werror -static -o "$out.tmp" "$src"/*.c -lm
mv "$out.tmp" "$out"
