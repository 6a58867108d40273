#!/usr/bin/env bash
# tests/hosts/run.sh: every host language whose SQLite binding is installed
# loads dist/nosql and runs the shared smoke set (tests/hosts/smoke.tsv):
# the sqlite3 shell, Debian's python3, Tcl (libsqlite3-tcl), Perl DBD::SQLite
# (libdbd-sqlite3-perl), Ruby (ruby-sqlite3), Go (mattn/go-sqlite3), Java
# (sqlite-jdbc) and Node with better-sqlite3
# (when tests/hosts/node_modules has it: make test-hosts-node). A missing
# host is reported as skipped with the package that provides it. Last line:
# "N passed, N failed, N skipped" (one count per host).
set -u
cd "$(dirname "$0")/../.."
ext=./dist/nosql
smoke=tests/hosts/smoke.tsv
pass=0
fail=0
skip=0

# host NAME HOW-TO-GET CHECK-CMD RUN-CMD...
host() {
  local name=$1 pkg=$2 check=$3
  shift 3
  if ! bash -c "$check" >/dev/null 2>&1; then
    echo "SKIP $name: not installed ($pkg)"
    skip=$((skip + 1))
    return
  fi
  local out rc
  out=$("$@" "$ext" "$smoke" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then
    echo "ok $name: $(echo "$out" | tail -n 1)"
    pass=$((pass + 1))
  else
    echo "FAIL $name (exit $rc):"
    echo "$out" | tail -n 20 | sed 's/^/    | /'
    fail=$((fail + 1))
  fi
}

# The shell reads the smoke set as a script: statements, then each query's
# first row, compared line by line.
shell_host() {
  local want got
  want=$(grep -v '^#' "$2" | grep -P '\t' | cut -f2)
  got=$( (
    echo ".load $1"
    echo ".separator |"
    grep -v '^#' "$2" | while IFS= read -r line; do
      case "$line" in
        *$'\t'*) echo "${line%%$'\t'*} LIMIT 1;" ;;
        *) echo "$line;" ;;
      esac
    done
  ) | sqlite3 -bail :memory: 2>&1)
  if [ "$got" = "$want" ]; then
    echo "$(echo "$want" | wc -l) passed, 0 failed"
  else
    diff <(echo "$want") <(echo "$got")
    echo "0 passed, 1 failed"
    return 1
  fi
}

# Go and Java compile their host program into build/hosts first.
go_host() {
  mkdir -p build/hosts
  (cd tests/hosts && GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE="$(pwd)/../../build/gocache" \
    go build -tags libsqlite3 -o ../../build/hosts/go_host go_host.go) || return 1
  build/hosts/go_host "$@"
}
java_host() {
  mkdir -p build/hosts
  javac -d build/hosts tests/hosts/Smoke.java || return 1
  java -cp build/hosts:/usr/share/java/sqlite-jdbc.jar Smoke "$@"
}

host "sqlite3 shell" "apt-get install sqlite3" "command -v sqlite3" shell_host
host "python3 (Debian)" "apt-get install python3" \
  "/usr/bin/python3 -c 'import sqlite3,sys; sys.exit(0 if hasattr(sqlite3.Connection, \"enable_load_extension\") else 1)'" \
  /usr/bin/python3 tests/hosts/python.py
host "Tcl" "apt-get install tcl libsqlite3-tcl" "echo 'exit [catch {package require sqlite3}]' | tclsh" \
  tclsh tests/hosts/tcl.tcl
host "Perl DBD::SQLite" "apt-get install libdbd-sqlite3-perl" "perl -MDBD::SQLite -e1" perl tests/hosts/perl.pl
host "Ruby sqlite3" "apt-get install ruby-sqlite3" "ruby -rsqlite3 -e1" ruby tests/hosts/ruby.rb
host "Go mattn/go-sqlite3" "apt-get install golang-go golang-github-mattn-go-sqlite3-dev" \
  "command -v go && test -d /usr/share/gocode/src/github.com/mattn/go-sqlite3" go_host
host "Java sqlite-jdbc" "apt-get install default-jdk-headless libxerial-sqlite-jdbc-java" \
  "command -v javac && test -f /usr/share/java/sqlite-jdbc.jar" java_host
host "Node better-sqlite3" "make test-hosts-node" "cd tests/hosts && node -e 'new (require(\"better-sqlite3\"))(\":memory:\")'" \
  node tests/hosts/node.js
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
