#!/usr/bin/env bash
# tests/matrix.sh: the suite against SQLite amalgamations of several
# versions (make test runs MATRIX="13.0.3", make test-all every one; the
# names are npm versions of better-sqlite3, see scripts/sqlite-amalgamation.sh).
# Each runner links its own SQLite and loads dist/nosql.so into it: every
# .test file and the reference check (docs/). A runner that dies (a signal,
# or an exit without its closing count) is a failure that names the file it
# was running. A runner of MATRIX_OLD (older than the floor) must get the
# load refused with a message naming both versions. Last line: "N passed, N
# failed".
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
tests=$(find tests -name '*.test' | sort)

# died RC OUT: the runner's exit code RC says it did not finish.
died() {
  [ "$1" -ge 128 ] || ! echo "$2" | tail -n 1 | grep -q -E '^[0-9]+ passed, [0-9]+ failed'
}

# running OUT: the first test file that OUT has no closing line for.
running() {
  local f
  for f in $tests; do
    echo "$1" | grep -q -F "$f: " || {
      echo "$f"
      return
    }
  done
  echo "(after the last file)"
}

for v in ${MATRIX:-}; do
  slt=build/matrix/$v/slt
  ver=$(cat "build/matrix/$v/VERSION" 2>/dev/null)
  echo "SQLite $ver (better-sqlite3 $v): running"
  # shellcheck disable=SC2086
  out=$("$slt" --ext dist/nosql $tests 2>&1)
  rc=$?
  docs=$("$slt" --ext dist/nosql --docs docs 2>&1)
  rc2=$?
  echo "$out" | grep -E '^(FAIL|  )' | head -n 60
  echo "$docs" | grep -E '^(FAIL|  )' | head -n 30
  ok=1
  if died "$rc" "$out"; then
    echo "FAIL SQLite $ver: the runner died (exit code $rc$([ "$rc" -ge 128 ] && echo ", signal $((rc - 128))")) in $(running "$out")"
    echo "$out" | tail -n 5 | sed 's/^/    | /'
    ok=0
  fi
  if died "$rc2" "$docs"; then
    echo "FAIL SQLite $ver: the reference check died (exit code $rc2)"
    echo "$docs" | tail -n 5 | sed 's/^/    | /'
    ok=0
  fi
  line=$(echo "$out" | tail -n 1)
  dline=$(echo "$docs" | tail -n 1)
  echo "SQLite $ver: suite: $line; reference: $dline"
  if [ $ok -eq 1 ] && [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && echo "$line" | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
  fi
done
for v in ${MATRIX_OLD:-}; do
  slt=build/matrix/$v/slt
  ver=$(cat "build/matrix/$v/VERSION" 2>/dev/null)
  out=$("$slt" --ext dist/nosql tests/core/core.test 2>&1)
  want="nosql: SQLite 3.38.0 or newer is required; this host runs SQLite $ver"
  if echo "$out" | grep -q -F "$want"; then
    echo "SQLite $ver: loading refused as it must be"
    pass=$((pass + 1))
  else
    echo "FAIL SQLite $ver: the load was not refused with: $want"
    echo "$out" | tail -n 5 | sed 's/^/    | /'
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
