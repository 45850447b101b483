#!/usr/bin/env bash
# with_busy_loops.sh COMMAND [ARG...]: runs COMMAND with two busy loops (shell
# processes spinning on a core each) beside it, and returns its status. Every
# test with a time bound must pass this way (issue 35): the timing tests are
# CI-checked on a loaded machine, since a bound that holds only on an idle one
# is a race. The loops are stopped by their process ids when COMMAND ends.
set -u
pids=()
stop_loops() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap stop_loops EXIT
for _ in 1 2; do
  (while :; do :; done) &
  pids+=($!)
done
"$@"
