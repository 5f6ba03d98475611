#!/usr/bin/env bash
# The README's test command: makes sure everything is installed and running, then runs every test
# (unit, CLI, and integration against the real Docker engine, bridges, iptables and ns-3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps-only
npm run lint --silent   # formatting, import order and lint rules (biome.jsonc); `npm run format` fixes most
npm run typecheck --silent
npx vitest run
