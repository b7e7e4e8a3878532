#!/usr/bin/env bash
# Runs the test suite (`npm test`, arguments passed on to vitest) with a CPU-bound competitor on
# every core: one busy loop per core (`nproc`, two on the 2-core CI machine), started first and
# killed on exit, whatever the suite's outcome. Exits with the suite's status. The suite must pass
# like this: no test may depend on wall-clock timing it does not control (docs/testing.md).
set -uo pipefail
cd "$(dirname "$0")/.."

cores="$(nproc 2>/dev/null || echo 2)"
competitors=()
stop_competitors() {
  for pid in "${competitors[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${competitors[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_competitors EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq 1 "$cores"); do
  # a busy loop in a shell of its own: pure CPU, no output, no memory
  sh -c 'while :; do :; done' &
  competitors+=("$!")
done
echo "test-under-load: ${#competitors[@]} CPU-bound competitors (pids ${competitors[*]}) on $cores cores"

started="$(date +%s)"
npm test -- "$@"
status=$?
echo "test-under-load: npm test exited $status after $(( $(date +%s) - started )) s under load"
exit "$status"
