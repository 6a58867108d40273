# shellcheck shell=sh disable=SC2034
# pg_cluster.sh: a private PostgreSQL 15 cluster for the bench scripts that
# compare with PostgreSQL (pg_gin.sh, pg_nearest.sh). Sourced, not run:
#
#   . tests/bench/pg_cluster.sh
#   pgRequire NAME            SKIP (exit 0) naming the package if PostgreSQL
#                             15 is missing or no user can run initdb
#   pgStart DIR KEEP [-c name=value ...]
#                             a cluster in DIR/pg, stopped on exit (and DIR
#                             removed unless KEEP is 1); extra server options
#   pgHalt                    stop the server, keep the cluster (for a
#                             single-user postgres on its data directory)
#   psql ...                  psql on that cluster as the superuser bench,
#                             unaligned, tuples only, stops at the first error
#
# initdb and pg_ctl come from $PGBIN (/usr/lib/postgresql/15/bin unless set)
# and run as the user postgres or nobody through runuser when we are root,
# as initdb refuses root. The server listens on a Unix socket in DIR/pg
# only, with fsync, synchronous_commit and full_page_writes off (the data
# is thrown away), shared_buffers 512MB and JIT off. Sets PG (the cluster's
# directory) and PGVERSION (the server's version).

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PGRUNAS=

pgRequire() { # name
  if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
    echo "SKIP $1: PostgreSQL 15 not found in $PGBIN (apt-get install postgresql-15)"
    exit 0
  fi
  for u in postgres nobody; do
    if id "$u" >/dev/null 2>&1; then PGRUNAS=$u; break; fi
  done
  if [ "$(id -u)" = 0 ] && [ -z "$PGRUNAS" ]; then
    echo "SKIP $1: no user postgres or nobody to run initdb as (initdb refuses root)"
    exit 0
  fi
}

pgAsUser() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PGRUNAS" -- "$@"; else "$@"; fi
}

pgStart() { # dir keep [-c name=value ...]
  PGDIR_=$1
  PGKEEP_=$2
  shift 2
  PG="$PGDIR_/pg"
  rm -rf "$PG"
  mkdir -p "$PG"
  chmod 755 "$PGDIR_"
  if [ "$(id -u)" = 0 ]; then chown "$PGRUNAS" "$PG"; fi
  pgAsUser "$PGBIN/initdb" -D "$PG/data" -U bench -A trust --no-sync >"$PG/initdb.log" 2>&1
  pgAsUser "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/log" -w -o "-c listen_addresses='' -k $PG -c fsync=off \
-c synchronous_commit=off -c full_page_writes=off -c shared_buffers=512MB -c max_wal_size=4GB \
-c jit=off $*" start >/dev/null
  trap pgStop EXIT INT TERM
  PGVERSION=$(psql -c "SHOW server_version")
}

pgHalt() {
  pgAsUser "$PGBIN/pg_ctl" -D "$PG/data" -m fast stop >/dev/null 2>&1 || true
}

pgStop() {
  pgHalt
  if [ "$PGKEEP_" = 0 ]; then rm -rf "$PGDIR_"; fi
}

psql() { PGOPTIONS='-c client_min_messages=warning' "$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG" -U bench -d postgres "$@"; }
