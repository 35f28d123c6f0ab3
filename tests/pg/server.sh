#!/usr/bin/env bash
# A throwaway PostgreSQL for the test suites written in other languages (node, Python,
# the contract fuzzer), the same kind the Rust tests start for themselves
# (store/src/engines/postgres/testing.rs): a cluster in a private directory under /tmp,
# a Unix socket there and no TCP, fsync off, a migrated template that every test
# database is copied from.
#
#   tests/pg/server.sh start DIR      # initdb, start, migrate the template
#   tests/pg/server.sh database DIR   # prints the store URL of a fresh database
#   tests/pg/server.sh stop DIR       # stops the server and removes DIR
#
# initdb refuses root: as root it runs PostgreSQL's programs as the postgres user.
set -euo pipefail

cmd=${1:?usage: server.sh start|database|stop DIR}
dir=${2:?usage: server.sh start|database|stop DIR}
radar=${RADAR_BIN:-target/debug/radar}

bin=${RADAR_PG_BIN:-}
if [ -z "$bin" ]; then
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
fi
[ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed: apt-get install postgresql (or set RADAR_PG_BIN)" >&2; exit 1; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() { echo "postgres:///$1?host=$dir&user=radar"; }

case "$cmd" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_pg "$bin/initdb" -D "$dir/data" --no-sync -A trust -U radar -E UTF8 --locale=C >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 start \
      -o "-k $dir -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB" >/dev/null
    as_pg "$bin/psql" -h "$dir" -U radar -d postgres -qc "CREATE DATABASE radar_template"
    # Opening the store migrates the template's schema.
    RADAR_LOG=warn "$radar" --data "$dir/template-replica" --store "$(url radar_template)" users list >/dev/null
    as_pg "$bin/psql" -h "$dir" -U radar -d postgres -qc "ALTER DATABASE radar_template IS_TEMPLATE true"
    ;;
  database)
    name="test_$(date +%s%N)_$$_$RANDOM"
    as_pg "$bin/psql" -h "$dir" -U radar -d postgres -qc "CREATE DATABASE \"$name\" TEMPLATE radar_template"
    url "$name"
    ;;
  stop)
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: server.sh start|database|stop DIR" >&2
    exit 2
    ;;
esac
