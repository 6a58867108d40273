#!/usr/bin/env bash
# examples/dqlite/run.sh: a three-node dqlite cluster on 127.0.0.1, each node
# with the nosql extension registered (node.go). A nested_set and an
# inverted_index are written through the leader, the leader is killed with
# SIGKILL, and the same queries answered by the new leader must be unchanged;
# a write after the failover must work and both integrity checks pass.
#
# Before the leader is killed, the write cost: the same single-row INSERTs
# into an inverted_index through the cluster and into a local WAL file
# (node.go's /bench), DQLITE_BENCH_N (300) in autocommit and
# DQLITE_BENCH_BATCH (3000) in one transaction, printed in writes per
# second (docs/replication.md keeps the figures).
#
# Needs Go and dqlite: apt-get install golang-go libdqlite-dev
# golang-github-canonical-go-dqlite-dev golang-github-mattn-go-sqlite3-dev
# (Debian 12), and dist/libnosql.a (make static). Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/nosql-dqlite-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do { kill -9 "$p" && wait "$p"; } 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
pass=0
fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

if ! command -v go >/dev/null 2>&1 || [ ! -f /usr/include/dqlite.h ] ||
  [ ! -d /usr/share/gocode/src/github.com/canonical/go-dqlite/app ] ||
  [ ! -d /usr/share/gocode/src/github.com/mattn/go-sqlite3 ] || ! command -v curl >/dev/null 2>&1; then
  echo "SKIP dqlite cluster: needs apt-get install golang-go libdqlite-dev golang-github-canonical-go-dqlite-dev golang-github-mattn-go-sqlite3-dev curl"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
if [ ! -f dist/libnosql.a ]; then
  echo "examples/dqlite/run.sh: dist/libnosql.a is missing: run make static first" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

# Build in GOPATH mode against Debian's Go sources (no module download).
bin=$work/nosql-dqlite-node
if ! (cd examples/dqlite && GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="${GOCACHE:-$work/gocache}" \
  GOFLAGS= CGO_ENABLED=1 CGO_LDFLAGS_ALLOW='-Wl,-z,now' go build -tags libsqlite3 -o "$bin" node.go) \
  >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  bad "build examples/dqlite/node.go"
  echo "$pass passed, $fail failed"
  exit 1
fi
ok "build the node with dist/libnosql.a"

base=${DQLITE_PORT_BASE:-9300}
db() { echo "127.0.0.1:$((base + $1))"; }
api() { echo "127.0.0.1:$((base + 100 + $1))"; }
start() {
  local i=$1
  shift
  "$bin" -dir "$work/node$i" -db "$(db "$i")" -api "$(api "$i")" "$@" >"$work/node$i.log" 2>&1 &
  pids[$i]=$!
}
# call N PATH [SQL]: a request to node N's API.
call() {
  if [ $# -eq 3 ]; then
    curl -s -m 20 --data-binary "$3" "http://$(api "$1")$2"
  else
    curl -s -m 20 "http://$(api "$1")$2"
  fi
}
# wait_for N PATH PATTERN SECONDS: poll until the answer matches.
wait_for() {
  local t
  for t in $(seq 1 "$4"); do
    if call "$1" "$2" 2>/dev/null | grep -q -E "$3"; then return 0; fi
    sleep 1
  done
  return 1
}

start 1
wait_for 1 /leader "$(db 1)" 30 || { cat "$work/node1.log"; bad "node 1 starts"; }
start 2 -join "$(db 1)"
start 3 -join "$(db 1)"
if wait_for 1 /cluster '' 1 && for t in $(seq 1 40); do
  [ "$(call 1 /cluster | grep -c ' voter$')" -eq 3 ] && break
  sleep 1
done && [ "$(call 1 /cluster | grep -c ' voter$')" -eq 3 ]; then
  ok "three voters"
else
  bad "three voters: $(call 1 /cluster | tr '\n' ';')"
fi

# Writes go to the leader whichever node takes them.
exec_sql() {
  local out
  out=$(call "$1" /exec "$2")
  [ "$out" = "ok" ] || bad "exec on node $1: $2 -> $out"
}
exec_sql 2 "CREATE VIRTUAL TABLE catalog USING nested_set(name TEXT)"
exec_sql 2 "INSERT INTO catalog(id, parent, name) VALUES (1, NULL, 'all'), (2, 1, 'books'), (3, 1, 'music'), (4, 2, 'poetry'), (5, 2, 'maths'), (6, 3, 'jazz')"
exec_sql 3 "CREATE VIRTUAL TABLE audience USING inverted_index(category, city)"
exec_sql 3 "INSERT INTO audience(rowid, category, city) VALUES (1, 'Men', 'Boston'), (2, 'Women', 'Boston'), (3, '[\"Men\", \"Kids\"]', 'Paris'), (4, 'Kids', 'Boston')"
q1="SELECT id, name, depth FROM catalog WHERE descendant_of = 1"
q2="SELECT rowid FROM audience WHERE audience MATCH 'city:Boston AND NOT category:Women'"
q3="SELECT geohash(48.8584, 2.2945, 9), mpath_match('a.b.c', 'a.*')"
before1=$(call 1 /query "$q1")
before2=$(call 1 /query "$q2")
before3=$(call 1 /query "$q3")
if [ "$before1" = "$(printf '2|books|1\n4|poetry|2\n5|maths|2\n3|music|1\n6|jazz|2')" ]; then
  ok "nested_set answers through the cluster"
else
  bad "nested_set: $before1"
fi
if [ "$before2" = "$(printf '1\n4')" ]; then ok "inverted_index answers"; else bad "inverted_index: $before2"; fi
if [ "$before3" = "u09tunquc|1" ]; then ok "scalar functions"; else bad "scalar functions: $before3"; fi

# The write cost, measured by the leader's node (node 1 until now).
bn=${DQLITE_BENCH_N:-300}
bb=${DQLITE_BENCH_BATCH:-3000}
cost=$(curl -s -m 600 "http://$(api 1)/bench?n=$bn&batch=$bb")
if [ "$(echo "$cost" | grep -c "writes/s; local WAL")" -eq 2 ] && ! echo "$cost" | grep -q '^error'; then
  ok "write cost through the cluster against a local WAL file (inverted_index, 3 voters on 127.0.0.1)"
  echo "$cost" | sed 's/^/  /'
  echo "  ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(df -T "$work" | awk 'NR == 2 { print $2 }') under $work)"
else
  bad "write cost: $cost"
fi

leader=$(call 1 /leader)
killed=0
for i in 1 2 3; do
  if [ "$leader" = "$(db "$i")" ]; then
    { kill -9 "${pids[$i]}" && wait "${pids[$i]}"; } 2>/dev/null
    killed=$i
  fi
done
if [ $killed -eq 0 ]; then bad "find the leader: $leader"; fi
other=$((killed % 3 + 1))
if wait_for "$other" /leader '^127\.0\.0\.1:' 40 && [ "$(call "$other" /leader)" != "$leader" ]; then
  ok "a new leader after killing node $killed: $(call "$other" /leader)"
else
  bad "no new leader after killing node $killed: $(call "$other" /leader)"
fi
[ "$(call "$other" /query "$q1")" = "$before1" ] && ok "nested_set unchanged on the new leader" ||
  bad "nested_set after failover: $(call "$other" /query "$q1")"
[ "$(call "$other" /query "$q2")" = "$before2" ] && ok "inverted_index unchanged on the new leader" ||
  bad "inverted_index after failover: $(call "$other" /query "$q2")"
exec_sql "$other" "INSERT INTO catalog(id, parent, name) VALUES (7, 6, 'bebop')"
exec_sql "$other" "INSERT INTO audience(rowid, category, city) VALUES (5, 'Men', 'Boston')"
[ "$(call "$other" /query "SELECT id FROM catalog WHERE ancestor_of = 7")" = "$(printf '1\n3\n6')" ] &&
  ok "write after the failover" || bad "write after failover: $(call "$other" /query "SELECT id FROM catalog WHERE ancestor_of = 7")"
[ "$(call "$other" /exec "INSERT INTO catalog(catalog) VALUES ('integrity-check')")" = "ok" ] &&
  [ "$(call "$other" /exec "INSERT INTO audience(audience) VALUES ('integrity-check')")" = "ok" ] &&
  ok "integrity checks pass on the new leader" || bad "integrity checks after failover"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
