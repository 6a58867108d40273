#!/usr/bin/env bash
# tests/run.sh [--all]: everything `make test` runs (and with --all, what
# `make test-all` runs), after make has built it.
#
# make test (a few minutes on an idle 2-core machine): the C unit tests,
# every tests/**/*.test through the runner, the reference check (docs/),
# the runner's own failure cases, the static-link host, the damaged-storage
# harness, the export list, the host languages that are installed
# (tests/hosts/), the side-by-side scripts (sql/), the multi-process
# atomicity tests (tests/concurrency/), the property tests (tests/property/:
# random WHERE clauses and random write histories against plain copies), a
# small benchmark run whose variants must agree (and its self-test, which
# shows the agreement check fails when it should), the fuzz corpora
# replayed, the crash test (a writer killed with SIGKILL), short runs of the
# out-of-memory and interrupt tests, the install test, and the whole suite
# on a SQLite 3.53 amalgamation. Then the unit tests, the .test files, the
# reference check, the runner's failure cases, the damage harness, the fuzz
# corpora and a short out-of-memory run again, built with
# -fsanitize=address,undefined (zero reports, leak detection on).
#
# make test-all (what CI runs): the same steps with the
# long settings (more rounds, out of memory at every allocation, interrupts
# at 60 points, ...) and the sanitizer runs of the out-of-memory and
# interrupt tests, plus the npm package, the Python wheel, the dqlite example
# and the suite on every SQLite of the version matrix (tests/matrix.sh), and
# last, alone, make release with its checks (tests/release.sh).
#
# Steps run side by side, as many at a time as there are cores
# (NOSQL_TEST_JOBS=1 runs them one by one). Each step prints "[k/N] name"
# when it starts and, when it ends, its output and its counts and seconds
# ("== [k] name: N passed, N failed, N skipped (T s)"); this script sums
# them, and its last line is the total. Exit code 1 on any failure.
set -u
cd "$(dirname "$0")/.."

total_pass=0
total_fail=0
total_skip=0
log=$(mktemp -d /tmp/nosql-test-XXXXXX)
trap 'rm -rf "$log"' EXIT

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=23:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=24"
export LSAN_OPTIONS="exitcode=23"

# Steps run side by side, $jobs at a time (NOSQL_TEST_JOBS, default: the
# number of cores): they are independent (each harness works in its own
# temporary files), and on a 2-core machine one step at a time left a core
# idle. Each step's output goes to a file and is shown whole when the step
# ends, so two steps never mix their lines; the counts are summed at the end.
jobs=${NOSQL_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}

# step NAME CMD...: start CMD when a slot is free; when it ends, show its
# output and its closing counts.
step() {
  local name=$1
  shift
  nstep=$((nstep + 1))
  if [ -n "${dry:-}" ]; then return; fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  echo "[$nstep/$total_steps] $name ($(($(date +%s) - started)) s so far)"
  stepRun "$nstep" "$name" "$@" &
}

# stepRun K NAME CMD...: run step K, then print its report in one piece
# and write its counts to $log/K.counts.
stepRun() {
  local k=$1 name=$2
  shift 2
  local out="$log/$k.out" report="$log/$k.report" t0
  t0=$(date +%s)
  "$@" >"$out" 2>&1
  local rc=$?
  local line
  line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  local p=0 f=0 s=0
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -n -E 's/.* ([0-9]+) skipped.*/\1/p')
    s=${s:-0}
  fi
  {
    # Show failures and per-file lines, not every passing detail.
    grep -v -E '^(PASS|ok) ' "$out"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
      echo "FAIL $name: exit code $rc without a failed count (crash or sanitizer report)"
      f=1
    fi
    if grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$out" && [ "$f" -eq 0 ]; then
      echo "FAIL $name: sanitizer report"
      f=1
    fi
    echo "== [$k] $name: $p passed, $f failed, $s skipped ($(($(date +%s) - t0)) s)"
  } >"$report"
  echo "$p $f $s" >"$log/$k.counts"
  flock "$log/print.lock" cat "$report"
}

# selftest SLT EXT: each tests/runner/fail/*.fail must fail with its "# expect:" lines.
selftest() {
  local slt=$1 ext=$2 pass=0 fail=0 f out
  for f in tests/runner/fail/*.fail; do
    out=$("$slt" --ext "$ext" "$f" 2>&1)
    if [ $? -eq 0 ]; then
      echo "FAIL $f: the runner passed a file that must fail"
      fail=$((fail + 1))
      continue
    fi
    if ! echo "$out" | tail -n 1 | grep -q -E '^[0-9]+ passed, [1-9][0-9]* failed'; then
      echo "FAIL $f: the last line does not count the failure: $(echo "$out" | tail -n 1)"
      fail=$((fail + 1))
      continue
    fi
    local ok=1 want
    while IFS= read -r want; do
      if ! echo "$out" | grep -q -F -- "$want"; then
        echo "FAIL $f: the diagnostic lacks: $want"
        ok=0
      fi
    done < <(sed -n 's/^# expect: //p' "$f")
    if [ $ok -eq 1 ]; then pass=$((pass + 1)); else
      fail=$((fail + 1))
      echo "$out" | sed 's/^/    | /'
    fi
  done
  # --rewrite writes FILE.new with the actual results in place of the expected.
  local tmp="$log/rewrite-$BASHPID.test"
  printf 'query IT\nSELECT 1 + 1, NULL\n----\n3\tx\n\nstatement ok\nSELECT 1\n' >"$tmp"
  "$slt" --ext "$ext" --rewrite "$tmp" >/dev/null 2>&1
  if [ "$(cat "$tmp.new" 2>/dev/null)" = "$(printf 'query IT\nSELECT 1 + 1, NULL\n----\n2\tNULL\n\nstatement ok\nSELECT 1')" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL --rewrite: $tmp.new is not the file with the actual results:"
    sed 's/^/    | /' "$tmp.new" 2>/dev/null
    fail=$((fail + 1))
  fi
  # --slt-compat (SQLite's rule): a step error ends the query's rows; prepare errors still fail.
  out=$("$slt" --ext "$ext" --slt-compat tests/runner/fail/query_step_error.fail 2>&1)
  if [ "$(echo "$out" | grep '^FAIL' | sed 's/.*fail:\([0-9]*\): /\1 /')" = "$(printf '28 query failed\n33 wrong result')" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL --slt-compat: query_step_error.fail must fail only at lines 28 and 33:"
    echo "$out" | sed 's/^/    | /'
    fail=$((fail + 1))
  fi
  # The reference check fails on docs/functions.md without a registered name
  # (geohash) or with one that is not registered (zorder_nothing). One copy
  # per runner: the plain and ASan steps may run side by side.
  local docs="$log/docs.${slt//\//_}"
  rm -rf "$docs" && mkdir "$docs" && cp docs/*.md "$docs/" &&
    sed -i -e '/^| \[`geohash(/d' -e 's/^| \[`zorder(/| [`zorder_nothing(/' "$docs/functions.md"
  out=$("$slt" --ext "$ext" --docs "$docs" 2>&1)
  if echo "$out" | grep -q -F "functions.md: 'geohash' is registered by the extension but not listed" &&
    echo "$out" | grep -q -F "'zorder_nothing' is listed but the extension does not register it" &&
    echo "$out" | tail -n 1 | grep -q -E '^[0-9]+ passed, 3 failed'; then
    pass=$((pass + 1))
  else
    echo "FAIL --docs: a damaged functions.md was not caught as expected:"
    echo "$out" | grep -v '^ok' | tail -n 10 | sed 's/^/    | /'
    fail=$((fail + 1))
  fi
  echo "$pass passed, $fail failed"
}

# units DIR: run every unit-test program in DIR.
units() {
  local pass=0 fail=0 t line
  for t in "$1"/test_*; do
    [ -x "$t" ] || continue
    line=$("$t" 2>&1)
    local rc=$?
    echo "$line" | grep -v -E '^[0-9]+ passed'
    local last p f
    last=$(echo "$line" | tail -n 1)
    p=$(echo "$last" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p')
    f=$(echo "$last" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p')
    if [ -z "$p" ] || { [ "$rc" -ne 0 ] && [ "$f" = 0 ]; }; then
      echo "FAIL $t: exit code $rc"
      p=${p:-0}
      f=$((${f:-0} + 1))
    fi
    echo "$t: $p passed, $f failed"
    pass=$((pass + p))
    fail=$((fail + f))
  done
  echo "$pass passed, $fail failed"
}

# fuzz_replay DIR: every fuzz target built in DIR (gcc, no libFuzzer) replays
# its corpus tests/fuzz/corpus/<target>/ (seeds and crash regressions); a
# crash or a sanitizer report fails the target.
fuzz_replay() {
  local pass=0 fail=0 t name out rc n
  for t in "$1"/fuzz_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    out=$("$t" "tests/fuzz/corpus/$name" 2>&1)
    rc=$?
    n=$(echo "$out" | tail -n 1 | sed -n -E 's/^([0-9]+) passed, 0 failed$/\1/p')
    if [ $rc -ne 0 ] || [ -z "$n" ] || echo "$out" | grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'; then
      echo "FAIL $name: exit code $rc replaying tests/fuzz/corpus/$name (rerun: $t -v tests/fuzz/corpus/$name)"
      echo "$out" | tail -n 30 | sed 's/^/    | /'
      fail=$((fail + 1))
    else
      pass=$((pass + n))
    fi
  done
  echo "$pass passed, $fail failed"
}

# docmodel N: tests/property/doc_match_model.py (an evaluator of MongoDB's
# find semantics written apart from ext/doc_match.c) writes N random cases
# with its answers as a .test file; the runner checks doc_match against it.
docmodel() {
  mkdir -p build/property &&
    python3 tests/property/doc_match_model.py --cases "$1" >build/property/doc_match.test &&
    build/slt --ext dist/nosql build/property/doc_match.test
}

# exports: the shared object exports sqlite3_nosql_init and nothing else.
exports() {
  local syms
  syms=$(nm -D --defined-only dist/nosql.so | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sort)
  if [ "$syms" = "sqlite3_nosql_init" ]; then
    echo "1 passed, 0 failed"
  else
    echo "FAIL dist/nosql.so exports more than sqlite3_nosql_init:"
    echo "$syms" | sed 's/^/    /'
    echo "0 passed, 1 failed"
  fi
}

# demos: every sql/*.sql runs in the sqlite3 shell, and every comparison it
# prints agrees ("agree" at least once, "DISAGREE" never); every "Run Time:"
# line follows a "-- " line that names what it timed.
demos() {
  local pass=0 fail=0 f out
  for f in sql/*.sql; do
    out=$(sqlite3 -bail :memory: <"$f" 2>&1)
    local rc=$?
    if [ $rc -ne 0 ] || echo "$out" | grep -q DISAGREE || ! echo "$out" | grep -q -w agree ||
      ! echo "$out" | awk '/^Run Time:/ && prev !~ /^-- / { bad = 1 } { prev = $0 } END { exit bad }'; then
      echo "FAIL $f: exit code $rc; output:"
      echo "$out" | tail -n 30 | sed 's/^/    | /'
      fail=$((fail + 1))
    else
      pass=$((pass + 1))
    fi
  done
  echo "$pass passed, $fail failed"
}

# missing NAME TOOL...: when a tool is not installed, say that NAME is
# skipped (.ci/run installs them; the make targets do too, as root) and
# succeed; otherwise fail, so that "missing ... || run" runs the step.
missing() {
  local name=$1 t
  shift
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      echo "SKIP $name: $t is not installed"
      echo "0 passed, 0 failed, 1 skipped"
      return 0
    fi
  done
  return 1
}

# platform NAME TOOL...: make test-platform PLATFORM=NAME (tests/platform.sh),
# skipped when a tool it needs is missing.
platform() {
  local name=$1
  shift
  missing "make test-platform PLATFORM=$name" "$@" && return 0
  make -s --no-print-directory test-platform PLATFORM="$name" 2>&1 | grep -v -E '^(ok|PASS) '
  return "${PIPESTATUS[0]}"
}

# release: make release and its checks (tests/release.sh), skipped where
# the platform toolchains or npm are missing.
release() {
  missing "make release" aarch64-linux-gnu-gcc qemu-aarch64 x86_64-w64-mingw32-gcc wine npm && return 0
  bash tests/release.sh
}

tests=$(find tests -name '*.test' | sort)
all=0
[ "${1:-}" = "--all" ] && all=1
# long QUICK ALL: QUICK under make test, ALL under make test-all.
long() { if [ $all -eq 1 ]; then echo "$2"; else echo "$1"; fi; }

# The longest steps come first, so that the short ones fill the other slots
# while they run and no long step starts last (times on a 2-core machine,
# make test: out of memory ~60 s, the sqllogictest suite ~40 s plain and
# under ASan, SQLite 3.53 ~35 s; make test-all: the ASan interrupt run, out
# of memory at every allocation and the version matrix, several minutes each).
plan() {
  if [ $all -eq 1 ]; then
    step "asan interrupts and progress handlers" build/asan/interrupt --points 6
    step "out of memory (allocation 1, 2, 3, ... of each feature's script)" build/oom --step 1
    MATRIX="$MATRIX_ALL" MATRIX_OLD="$MATRIX_OLD" step "SQLite versions (the matrix, and too old)" bash tests/matrix.sh
  else
    step "out of memory (allocation 1, 30, 59, ... of each feature's script)" build/oom --step 29
  fi
  # shellcheck disable=SC2086
  step "sqllogictest" build/slt --ext dist/nosql $tests
  # shellcheck disable=SC2086
  step "asan sqllogictest" build/asan/slt --ext build/asan/nosql.so $tests
  if [ $all -eq 0 ]; then
    MATRIX="$MATRIX_CI" MATRIX_OLD="" step "SQLite 3.53 (whole suite)" bash tests/matrix.sh
  fi
  step "asan out of memory (allocation $(long "1, 98, 195, ..." "1, 8, 15, ...") of each script)" build/asan/oom --step "$(long 97 7)"
  step "damaged shadow tables ($(long 200 1000) rounds each)" build/damage --ext dist/nosql --rounds "$(long 200 1000)"
  step "asan damaged shadow tables ($(long 40 300) rounds each)" build/asan/damage --ext build/asan/nosql.so --rounds "$(long 40 300)"
  step "interrupts and progress handlers (every module, $(long 4 60) points)" build/interrupt --points "$(long 4 60)"
  step "doc_match vs an independent Python model ($(long 20000 200000) random documents and filters)" \
    docmodel "$(long 20000 200000)"
  if [ $all -eq 1 ]; then
    step "npm package (packed tarball in better-sqlite3)" bash tests/npm.sh
    step "Python wheel (pip install --no-index in a fresh venv, smoke set)" bash tests/wheel.sh
    step "dqlite cluster (examples/dqlite: leader killed)" bash examples/dqlite/run.sh
    step "linux-arm64 build, whole suite under qemu-aarch64" platform linux-arm64 aarch64-linux-gnu-gcc qemu-aarch64
    step "windows-x64 build, whole suite under wine" platform windows-x64 x86_64-w64-mingw32-gcc wine
    step "WebAssembly build: sql/ scripts and the API in Node, the playground in Chromium" bash tests/wasm/browser.sh
  fi
  step "multi-process writers (nested_set, inverted_index)" build/concurrency/writers dist/nosql.so 4 "$(long 150 400)"
  step "planning property test (random WHERE clauses vs plain copies)" build/property/plan dist/nosql.so "$(long 1500 6000)"
  step "index_table maintenance property test (random write histories vs direct queries)" \
    build/property/history dist/nosql.so "$(long 400 2000)"
  step "inverted_index direct=off property test (FTS5 trigger recipe and stored values vs direct queries)" \
    build/property/history --direct-off dist/nosql.so "$(long 400 2000)"
  step "inverted_index mode='sync' property test (its own triggers vs direct queries)" \
    build/property/history --sync dist/nosql.so "$(long 400 2000)"
  step "graph_index maintenance property test (random edge histories vs the edge table)" \
    build/property/graph_index dist/nosql.so "$(long 200 2000)"
  step "trigger coverage property test (every write form vs every structure a trigger keeps)" \
    build/property/triggers dist/nosql.so "$(long 120 2000)"
  step "geo_nearest agreement property test (random points and centres vs the full scan)" \
    build/property/nearest dist/nosql.so "$(long 40 400)"
  step "bench agreement (tiny sizes)" build/bench/bench --size 0.002 --reps 1
  step "unit tests" units build/unit
  step "asan unit tests" units build/asan/unit
  step "side-by-side scripts (sql/)" demos
  step "crash test ($(long 10 50) kills per journal mode, WAL and rollback)" build/crash --runs "$(long 10 50)"
  step "multi-process atomicity (4 processes, WAL and rollback journal)" build/concurrency/kv_incr dist/nosql.so
  step "multi-process doc_upsert (4 processes, WAL and rollback journal)" build/concurrency/doc_upsert dist/nosql.so 4 "$(long 300 2000)"
  step "hidden input columns read back their arguments (every table-valued function)" build/property/hidden dist/nosql.so
  step "reference (docs/)" build/slt --ext dist/nosql --docs docs
  step "generated tests/kv/collation.test is what its generator writes" python3 tests/kv/collation_gen.py --check tests/kv/collation.test
  step "asan reference (docs/)" build/asan/slt --ext build/asan/nosql.so --docs docs
  step "runner failure cases" selftest build/slt dist/nosql
  step "asan runner failure cases" selftest build/asan/slt build/asan/nosql.so
  step "static library host" build/static-host VERSION
  step "exported symbols" exports
  step "host languages (tests/hosts/)" bash tests/hosts/run.sh
  step "bench agreement self-test (disagreements caught)" build/bench/bench --selftest
  step "charts from a small results file (scripts/plot.py)" python3 tests/plot/check.py
  step "benchmarks.md summary table: every technique, every link to a heading" python3 tests/bench/summary_check.py
  step "fuzz corpora replayed (tests/fuzz/corpus)" fuzz_replay build/fuzz-replay
  step "asan fuzz corpora replayed" fuzz_replay build/asan/fuzz-replay
  step "install, pkg-config and release tarball" bash tests/install.sh
  if [ $all -eq 1 ]; then
    # make release rebuilds the archives, wheels and npm package that the
    # steps above build and test (install, npm, wheel, the platform
    # suites), so it starts once they have all ended; with their builds
    # made, it takes about 30 s.
    [ -n "${dry:-}" ] || wait
    step "make release: every artefact, SHA256SUMS, the other platforms' wheels (tests/release.sh)" release
  fi
}

# A dry pass counts the steps, so that each one can say how far the run is.
started=$(date +%s)
nstep=0
dry=1 plan >/dev/null
total_steps=$nstep
nstep=0
dry='' plan
wait
for k in $(seq 1 "$total_steps"); do
  if [ ! -f "$log/$k.counts" ]; then
    echo "FAIL step $k: it did not report (killed?)"
    total_fail=$((total_fail + 1))
    continue
  fi
  read -r p f s <"$log/$k.counts"
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  total_skip=$((total_skip + s))
done
echo
echo "$(($(date +%s) - started)) s in all ($jobs steps at a time)"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
