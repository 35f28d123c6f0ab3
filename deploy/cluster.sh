#!/usr/bin/env bash
# Radar past one machine, on one machine: PostgreSQL, three `radar serve` sharing it,
# and haproxy in front of them, all from Debian's packages (apt-get install postgresql
# haproxy). A recipe to read as much as a script to run; see deploy/README.md.
#
#   deploy/cluster.sh start [DIR]   # everything under DIR (default /tmp/radar-cluster)
#   deploy/cluster.sh status [DIR]  # what haproxy thinks of each node
#   deploy/cluster.sh stop [DIR]
#   deploy/cluster.sh db-stop|db-start [DIR]   # the database alone (a restart, by hand)
#
# Environment: RADAR_BIN (default target/release/radar), PORT (haproxy's, default 8080),
# NODES (default 3), RADAR_PG_BIN (PostgreSQL's programs, default the newest installed).
set -euo pipefail

cmd=${1:?usage: cluster.sh start|status|stop [DIR]}
dir=${2:-/tmp/radar-cluster}
radar=$(readlink -f "${RADAR_BIN:-target/release/radar}")
port=${PORT:-8080}
nodes=${NODES:-3}
bin=${RADAR_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

as_pg() {
  # initdb refuses root: as root, PostgreSQL runs as its own system user.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The store URL: a Unix socket in DIR/pg, the password-less local role `radar`. Over a
# network it would be postgres://radar:PASSWORD@HOST:5432/radar (the password is never
# logged: Radar shows the URL redacted).
store="postgres:///radar?host=$dir/pg&user=radar&pool_size=16"

db_start() {
  as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w -t 60 start \
    -o "-k $dir/pg -c listen_addresses='' -c max_connections=200" >/dev/null
}

db_stop() {
  as_pg "$bin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null
}

start() {
  [ -x "$radar" ] || { echo "no radar binary at $radar: cargo build --release -p radar-cli" >&2; exit 1; }
  [ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed: apt-get install postgresql" >&2; exit 1; }
  command -v haproxy >/dev/null || { echo "haproxy is not installed: apt-get install haproxy" >&2; exit 1; }
  mkdir -p "$dir/pg"
  if [ "$(id -u)" = 0 ]; then
    # PostgreSQL runs as its own user: it must reach DIR/pg through DIR (traverse only;
    # each node's data directory stays private to root).
    chmod a+x "$dir"
    chown postgres: "$dir/pg"
  fi
  if [ ! -d "$dir/pg/data" ]; then
    # fsync stays on: an acknowledged write is on disk (synchronous_commit=on).
    as_pg "$bin/initdb" -D "$dir/pg/data" -A trust -U radar -E UTF8 --locale=C >/dev/null
  fi
  db_start
  as_pg "$bin/psql" -h "$dir/pg" -U radar -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'radar'" | grep -q 1 \
    || as_pg "$bin/psql" -h "$dir/pg" -U radar -d postgres -qc "CREATE DATABASE radar"

  # Every node starts at once: the schema is migrated once (an advisory lock), the demo
  # data loaded once (a lease), the token secret made once (shared in the database).
  local servers=""
  for i in $(seq 1 "$nodes"); do
    local node_port=$((port + i))
    mkdir -p "$dir/node$i"
    # haproxy is each node's one client: no per-client connection cap, and the real
    # client's address from its X-Forwarded-For for the rate limits.
    RADAR_MAX_CONNECTIONS_PER_PEER=${RADAR_MAX_CONNECTIONS_PER_PEER:-0} \
    RADAR_TRUST_FORWARDED_FOR=${RADAR_TRUST_FORWARDED_FOR:-true} \
    RADAR_LOG=${RADAR_LOG:-info} nohup "$radar" --data "$dir/node$i" --store "$store" serve \
      --addr "127.0.0.1:$node_port" --site-url "http://127.0.0.1:$port" \
      >"$dir/node$i.out" 2>"$dir/node$i.log" &
    echo $! >"$dir/node$i.pid"
    servers+="    server node$i 127.0.0.1:$node_port check"$'\n'
  done

  # While no node is ready (the database restarting), haproxy answers as a node would:
  # 503 in Radar's error shape, with Retry-After.
  local body='{"error":"unavailable","message":"The server cannot reach its database right now. Please try again in a few seconds."}'
  printf '%s\r\n' 'HTTP/1.1 503 Service Unavailable' 'Content-Type: application/json' \
    "Content-Length: ${#body}" 'Retry-After: 2' 'Cache-Control: no-store' 'Connection: close' '' \
    >"$dir/503.http"
  printf '%s' "$body" >>"$dir/503.http"
  cat >"$dir/haproxy.cfg" <<CFG
global
    stats socket $dir/haproxy.sock mode 600 level admin
defaults
    mode http
    option forwardfor
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # A request that found its node gone is sent to another one.
    retries 3
    option redispatch
    retry-on conn-failure empty-response response-timeout 503
    errorfile 503 $dir/503.http
frontend radar
    bind 127.0.0.1:$port
    default_backend nodes
backend nodes
    balance roundrobin
    # Ready: the database answers and the node's search replica is current.
    option httpchk GET /api/health/ready
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2
$servers
CFG
  haproxy -D -f "$dir/haproxy.cfg" -p "$dir/haproxy.pid"
  for i in $(seq 1 "$nodes"); do
    for _ in $(seq 1 120); do
      grep -q '^listening on' "$dir/node$i.out" 2>/dev/null && break
      sleep 0.5
    done
    grep -q '^listening on' "$dir/node$i.out" || { echo "node$i did not start: see $dir/node$i.log" >&2; exit 1; }
  done
  echo "radar: http://127.0.0.1:$port (haproxy) in front of $nodes nodes; store $dir/pg"
  grep '^anon key' "$dir/node1.out"
}

status() {
  echo "show stat" | socat - "UNIX-CONNECT:$dir/haproxy.sock" 2>/dev/null \
    | awk -F, '$1 == "nodes" { print $2, $18 }' \
    || echo "haproxy's stats need socat (apt-get install socat)"
}

stop() {
  [ -f "$dir/haproxy.pid" ] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true
  for pid in "$dir"/node*.pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  [ -d "$dir/pg/data" ] && db_stop 2>/dev/null || true
  rm -f "$dir"/*.pid
}

case "$cmd" in
  start) start ;;
  status) status ;;
  stop) stop ;;
  # The database alone, to see the nodes answer 503 and heal without a restart.
  db-stop) db_stop ;;
  db-start) db_start ;;
  *) echo "usage: cluster.sh start|status|stop|db-stop|db-start [DIR]" >&2; exit 2 ;;
esac
