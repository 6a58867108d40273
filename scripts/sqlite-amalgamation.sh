#!/usr/bin/env bash
# scripts/sqlite-amalgamation.sh NPMVERSION DIR: put the SQLite amalgamation
# (sqlite3.c, sqlite3.h) that the npm package better-sqlite3@NPMVERSION
# bundles into DIR, for the version matrix (make test-matrix). The package
# comes from the npm registry; nothing of it is committed.
#
#   better-sqlite3   SQLite
#   7.5.0            3.37.2  (older than the floor: loading must be refused)
#   7.5.1            3.38.2  (the floor's release line)
#   7.6.2            3.39.1
#   8.2.0            3.41.0  (Debian 12's sqlite3 is 3.40.1)
#   8.5.0            3.42.0
#   9.0.0            3.43.2
#   9.2.2            3.44.2
#   9.4.0            3.45.1
#   11.3.0           3.46.1
#   11.7.0           3.47.2
#   11.8.1           3.48.0
#   11.10.0          3.49.2
#   12.4.1           3.50.4
#   12.8.0           3.51.3
#   12.9.0           3.53.0  (no better-sqlite3 release carries 3.52)
#   13.0.3           3.53.4  (make test: 3.52.0-3.53.4 need a connection
#                             for sqlite3_value_numeric_type)
#   13.2.0           3.54.1
set -eu
ver=$1
dir=$2
if [ -f "$dir/sqlite3.c" ] && [ -f "$dir/sqlite3.h" ]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  # Debian's npm (a machine with Node.js from elsewhere has npm already).
  "$(dirname "$0")/prereq.sh" npm || exit 1
fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "better-sqlite3@$ver" >/dev/null 2>&1) || {
  echo "scripts/sqlite-amalgamation.sh: npm pack better-sqlite3@$ver failed" >&2
  exit 1
}
tar xzf "$tmp"/better-sqlite3-"$ver".tgz -C "$tmp" package/deps
if [ -f "$tmp/package/deps/sqlite3/sqlite3.c" ]; then
  cp "$tmp/package/deps/sqlite3/sqlite3.c" "$tmp/package/deps/sqlite3/sqlite3.h" "$dir/"
elif [ -f "$tmp/package/deps/sqlite3.tar.gz" ]; then
  tar xzf "$tmp/package/deps/sqlite3.tar.gz" -C "$tmp"
  cp "$(find "$tmp" -name sqlite3.c | head -n 1)" "$(find "$tmp" -name sqlite3.h | head -n 1)" "$dir/"
else
  echo "scripts/sqlite-amalgamation.sh: no sqlite3.c in better-sqlite3@$ver" >&2
  exit 1
fi
grep -m 1 '#define SQLITE_VERSION ' "$dir/sqlite3.h" | sed 's/.*"\(.*\)"/\1/' >"$dir/VERSION"
