#!/usr/bin/env bash
# `cavsim sweep --cavsim-on-nodes` for the Slurm tests: runs this checkout's cavsim as a Slurm task
# would, except array task 2, which fails as a broken node would (exit 1, no result written).
task="${*: -1}"
if [ "$task" = "2" ]; then
  echo "task $task: failing on purpose" >&2
  exit 1
fi
exec node "$(dirname "$0")/../../../dist/cli/main.js" "$@"
