#!/usr/bin/env bash
# tests/hosts/run.sh: every host language whose SQLite binding is installed
# loads dist/nosql and runs the shared smoke set (tests/hosts/smoke.tsv):
# the sqlite3 shell, Debian's python3, Tcl (libsqlite3-tcl), Perl DBD::SQLite
# (libdbd-sqlite3-perl), Ruby (ruby-sqlite3), Go (mattn/go-sqlite3), Java
# (sqlite-jdbc), PHP's SQLite3 (php-sqlite3), R's RSQLite (r-cran-rsqlite),
# and Node with better-sqlite3, Bun (bun:sqlite) and Deno (node:sqlite)
# (when tests/hosts/node_modules has them: make test-hosts-node; a bun or
# deno on PATH is used first). LuaSQL (lua-sql-sqlite3) cannot load
# extensions: its script checks that it still refuses. A missing host is
# reported as skipped with the package that provides it. Last line:
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

# PHP loads only from the absolute directory in sqlite3.extension_dir.
php_host() {
  php -d sqlite3.extension_dir="$(cd "$(dirname "$1")" && pwd)" tests/hosts/php.php "$@"
}
# Bun and Deno: from PATH, else the binaries of their npm packages.
bun=$(command -v bun || ls tests/hosts/node_modules/@oven/bun-linux-*/bin/bun 2>/dev/null | head -n 1)
deno=$(command -v deno || ls tests/hosts/node_modules/@deno/linux-*/deno 2>/dev/null | head -n 1)
lua=$(for l in lua5.4 lua5.3 lua5.2 lua5.1 lua; do
  if "$l" -e 'require "luasql.sqlite3"' >/dev/null 2>&1; then
    echo "$l"
    break
  fi
done)

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
host "PHP SQLite3" "apt-get install php-cli php-sqlite3" "php -r 'exit(class_exists(\"SQLite3\") ? 0 : 1);'" php_host
host "R RSQLite" "apt-get install r-cran-rsqlite" "Rscript -e 'quit(status = !requireNamespace(\"RSQLite\", quietly = TRUE))'" \
  Rscript tests/hosts/rsqlite.R
host "Bun bun:sqlite" "make test-hosts-node" "test -x '$bun'" "$bun" tests/hosts/bun.mjs
host "Deno node:sqlite" "make test-hosts-node" "test -x '$deno'" "$deno" run --allow-read --allow-ffi tests/hosts/deno.mjs
host "LuaSQL (cannot load: the refusal is checked)" "apt-get install lua5.4 lua-sql-sqlite3" "test -n '$lua'" "$lua" tests/hosts/luasql.lua
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
