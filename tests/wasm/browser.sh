#!/usr/bin/env bash
# tests/wasm/browser.sh: the WebAssembly build's tests (make test-browser;
# make test-all runs it): make wasm, then tests/wasm/scripts.mjs (every
# sql/ script and the API under Node) and tests/wasm/browser.mjs (the
# playground in headless Chromium), each compared with the native sqlite3
# shell on a native build of the same SQLite. Skipped, with the reason,
# where emscripten, chromium or Node 20+ is missing (CI installs them:
# .ci/run). puppeteer-core comes from the npm registry into build/wasm/npm/.
# Ends with one "N passed, N failed, N skipped" line.
set -u
cd "$(dirname "$0")/../.."
skip() {
  echo "tests/wasm: skipped: $1"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}
command -v emcc >/dev/null 2>&1 || skip "emscripten is not installed (apt-get install emscripten)"
command -v chromium >/dev/null 2>&1 || skip "chromium is not installed (apt-get install chromium)"
command -v node >/dev/null 2>&1 || skip "node is not installed"
node -e 'process.exit(parseInt(process.versions.node) >= 20 ? 0 : 1)' || skip "node $(node --version) is older than 20"
make -s wasm dist/nosql.so build/wasm/native/libsqlite3.so.0 build/wasm/native/shell_id.so >build/wasm-make.log 2>&1 || {
  tail -n 20 build/wasm-make.log
  echo "FAIL make wasm"
  echo "0 passed, 1 failed"
  exit 1
}
if [ ! -d build/wasm/npm/node_modules/puppeteer-core ]; then
  mkdir -p build/wasm/npm
  (cd build/wasm/npm && npm install --no-audit --no-fund --silent puppeteer-core@24) || skip "npm install puppeteer-core failed"
fi
p=0
f=0
for t in tests/wasm/scripts.mjs tests/wasm/browser.mjs; do
  out=$(node "$t" 2>&1)
  rc=$?
  echo "$out" | sed "s#^#$(basename "$t" .mjs): #"
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -z "$line" ]; then
    echo "FAIL $t: exit code $rc without counts"
    f=$((f + 1))
    continue
  fi
  p=$((p + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
  f=$((f + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
done
echo "$p passed, $f failed, 0 skipped"
[ "$f" -eq 0 ]
