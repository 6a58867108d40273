#!/usr/bin/env bash
# tests/npm.sh: the packed npm package (make npm) installs from its tarball
# and loads in better-sqlite3 through getLoadablePath() and load(db), from
# CommonJS and from an ES module, with CRoaring and PCRE2 taken from the
# package itself (not from the system). node:sqlite is tried where Node has
# it (22.13+). The package holds the builds of linux-x64, linux-arm64 and
# windows-x64: getLoadablePath(host) finds each, and names them when it has
# none for a host; the arm64 and Windows builds pass tests/core/core.test
# in their platform's runner (qemu-aarch64, wine) where make test-platform
# has built it. Needs node, npm and the better-sqlite3 build of
# make test-hosts-node; without them each check is reported as skipped.
# Last line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
skip=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "SKIP npm package: node and npm are not installed"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
if ! make -s npm >/dev/null 2>&1; then
  bad "make npm"
  echo "$pass passed, $fail failed, $skip skipped"
  exit 1
fi
tgz=$(pwd)/dist/sqlite-nosql-$(cat VERSION).tgz
tmp=$(mktemp -d /tmp/nosql-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if (cd "$tmp" && npm install --silent --no-save --offline --no-audit --no-fund "$tgz" >/dev/null 2>&1); then
  ok "npm install from $(basename "$tgz")"
else
  bad "npm install from $(basename "$tgz")"
fi
pkg=$tmp/node_modules/sqlite-nosql
so=$pkg/lib/linux-$(node -p process.arch)/nosql.so
want="package/lib/linux-arm64/libpcre2-8.so.0
package/lib/linux-arm64/libroaring.so.0
package/lib/linux-arm64/nosql.so
package/lib/linux-x64/libpcre2-8.so.0
package/lib/linux-x64/libroaring.so.0
package/lib/linux-x64/nosql.so
package/lib/windows-x64/nosql.dll"
got=$(tar tzf "$tgz" | grep '^package/lib/' | sort)
if [ "$got" = "$want" ]; then ok "the package holds linux-x64, linux-arm64 and windows-x64"; else
  bad "the package's lib/:"
  diff <(echo "$want") <(echo "$got") | sed 's/^/    | /'
fi
# The packaged extension resolves CRoaring and PCRE2 beside itself.
if ldd "$so" 2>/dev/null | grep -q "libroaring.so.0 => $(dirname "$so")/libroaring.so.0" &&
  ldd "$so" 2>/dev/null | grep -q "libpcre2-8.so.0 => $(dirname "$so")/libpcre2-8.so.0"; then
  ok "nosql.so finds the libroaring.so.0 and libpcre2-8.so.0 it ships"
else
  bad "nosql.so does not resolve its libraries from its own directory: $(ldd "$so" 2>&1 | grep -E 'roaring|pcre2')"
fi
# getLoadablePath(host) for each platform, and for one the package lacks.
got=$(cd "$tmp" && node -e '
  const n = require("sqlite-nosql");
  console.log(n.getLoadablePath());
  for (const h of ["linux-x64", "linux-arm64", "win32-x64"]) console.log(n.getLoadablePath(h));
  try { n.getLoadablePath("darwin-arm64"); } catch (e) { console.log(e.message); }' 2>&1)
want="$so
$pkg/lib/linux-x64/nosql.so
$pkg/lib/linux-arm64/nosql.so
$pkg/lib/windows-x64/nosql.dll
sqlite-nosql: no build for darwin-arm64 in this package (it holds: linux-x64, linux-arm64, windows-x64); build the extension from source with make"
if [ "$got" = "$want" ]; then ok "getLoadablePath() for this host and (host) for each platform; darwin-arm64 names the platforms held"; else
  bad "getLoadablePath(host):"
  diff <(echo "$want") <(echo "$got") | sed 's/^/    | /'
fi
# The other platforms' builds load in their own runners.
if [ -x build/linux-arm64/slt ] && command -v qemu-aarch64 >/dev/null 2>&1; then
  out=$(qemu-aarch64 -L /usr/aarch64-linux-gnu build/linux-arm64/slt --ext "$pkg/lib/linux-arm64/nosql" tests/core/core.test 2>&1)
  if echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then ok "lib/linux-arm64 under qemu-aarch64"; else
    bad "lib/linux-arm64 under qemu-aarch64: $(echo "$out" | tail -n 3)"
  fi
else
  echo "SKIP lib/linux-arm64: no build/linux-arm64/slt (make test-platform PLATFORM=linux-arm64)"
  skip=$((skip + 1))
fi
if [ -f build/windows-x64/slt.exe ] && command -v wine >/dev/null 2>&1; then
  out=$(WINEPREFIX=$PWD/build/windows-x64/wine WINEDEBUG=-all wine build/windows-x64/slt.exe \
    --ext "$pkg/lib/windows-x64/nosql" tests/core/core.test 2>&1)
  if echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then ok "lib/windows-x64 under wine"; else
    bad "lib/windows-x64 under wine: $(echo "$out" | tail -n 3)"
  fi
else
  echo "SKIP lib/windows-x64: no build/windows-x64/slt.exe (make test-platform PLATFORM=windows-x64)"
  skip=$((skip + 1))
fi

hosts=$(pwd)/tests/hosts/node_modules
if ! (cd tests/hosts && node -e 'new (require("better-sqlite3"))(":memory:")') >/dev/null 2>&1; then
  echo "SKIP better-sqlite3: not built (make test-hosts-node)"
  skip=$((skip + 1))
else
  want="$(cat VERSION)|$so|s01mtw037"
  got=$(cd "$tmp" && NODE_PATH=$hosts node -e '
    const Database = require("better-sqlite3");
    const nosql = require("sqlite-nosql");
    const db = new Database(":memory:");
    nosql.load(db);
    const r = db.prepare("SELECT nosql_version() AS v, geohash(1, 2, 9) AS h").get();
    console.log([r.v, nosql.getLoadablePath(), r.h].join("|"));' 2>&1)
  if [ "$got" = "$want" ]; then ok "better-sqlite3: require + load(db)"; else bad "better-sqlite3 (CommonJS): want $want, got $got"; fi
  got=$(cd "$tmp" && NODE_PATH=$hosts node --input-type=module -e '
    import { createRequire } from "node:module";
    import { load, getLoadablePath } from "sqlite-nosql";
    const Database = createRequire(process.cwd() + "/")("better-sqlite3");
    const db = new Database(":memory:");
    db.loadExtension(getLoadablePath());
    const db2 = new Database(":memory:");
    load(db2);
    console.log(db.prepare("SELECT nosql_version() AS v").get().v === db2.prepare("SELECT nosql_version() AS v").get().v);' 2>&1)
  if [ "$got" = "true" ]; then ok "better-sqlite3: import (ES module)"; else bad "ES module import: $got"; fi
  got=$(cd "$tmp" && node -e 'try { require("sqlite-nosql").load({}); } catch (e) { console.log(e.message); }' 2>&1)
  if [ "$got" = "sqlite-nosql: load(db) needs a database with a loadExtension(path) method" ]; then
    ok "load() of something that is not a database"
  else
    bad "load({}): $got"
  fi
fi
if node -e 'require("node:sqlite")' >/dev/null 2>&1; then
  got=$(cd "$tmp" && node -e '
    const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(":memory:", { allowExtension: true });
    require("sqlite-nosql").load(db);
    console.log(db.prepare("SELECT nosql_version() AS v").get().v);' 2>&1)
  if [ "$got" = "$(cat VERSION)" ]; then ok "node:sqlite: load(db)"; else bad "node:sqlite: $got"; fi
else
  echo "SKIP node:sqlite: Node $(node --version) has no node:sqlite (22.13+)"
  skip=$((skip + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
