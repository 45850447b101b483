#!/usr/bin/env bash
# Runs a command with N busy loops beside it, as on a machine shared with others'
# builds: a time bound in a test bounds responsiveness, so it must hold here too.
# The loops die with this script, however it ends.
# usage: under_load.sh N COMMAND [ARG...]
set -uo pipefail
n=$1
shift
pids=()
cleanup() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < n; i++)); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
echo "under_load: $n busy loops beside: $*"
"$@"
