#!/usr/bin/env bash
# scripts/node-host.sh: install better-sqlite3 (with its bundled SQLite) into
# tests/hosts/node_modules for the Node host test, building its native
# module with node-gyp against the installed Node's headers (no prebuilt
# binary is downloaded). Needs node, npm, make and a C++ compiler.
# Bun and Deno come in the same install: their npm packages carry the
# binaries in per-platform packages (@oven/bun-linux-*, @deno/linux-*), so
# nothing is downloaded from elsewhere; tests/hosts/run.sh runs those
# binaries directly (the packages' postinstall links are not needed).
set -eu
cd "$(dirname "$0")/../tests/hosts"
ver=11.3.0      # SQLite 3.46.1; 12.x needs Node 20+, 13.x Node 22+
bun_ver=1.4.5   # bun:sqlite, SQLite 3.54.1
deno_ver=2.9.6  # node:sqlite, SQLite 3.53.2
for cmd in node npm make g++; do
  if ! command -v $cmd >/dev/null 2>&1; then
    echo "scripts/node-host.sh: $cmd is needed for the Node host test" >&2
    exit 1
  fi
done
# One install: a second `npm install --no-save` would prune the first's packages.
npm install --silent --no-save --ignore-scripts --no-audit --no-fund \
  "better-sqlite3@$ver" "bun@$bun_ver" "deno@$deno_ver" >/dev/null
nodedir=$(npm config get nodedir 2>/dev/null || true)
if [ -z "$nodedir" ] || [ "$nodedir" = "undefined" ] || [ ! -d "$nodedir/include/node" ]; then
  nodedir=$(dirname "$(dirname "$(command -v node)")")
fi
gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
cd node_modules/better-sqlite3
node "$gyp" rebuild --release --nodedir="$nodedir" >build.log 2>&1 || {
  tail -n 20 build.log >&2
  exit 1
}
node -e 'require("better-sqlite3")' && echo "better-sqlite3@$ver built for Node $(node --version)"
