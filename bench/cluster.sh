#!/usr/bin/env bash
# One daemon on the embedded store against one and three daemons on PostgreSQL (behind
# haproxy), side by side in one run on this machine: the three read endpoints (the
# signed-in feed page, the anonymous page, the public API by key), durable favourite
# toggles and sign-ins, requests per second and p99.
#
#   cargo build --release -p radar-cli && bash bench/cluster.sh
#   ITEMS=1000000 DURATION=10 ROUNDS=5 bash bench/cluster.sh
#
# The PostgreSQL side is deploy/cluster.sh (PostgreSQL with fsync on, NODES=3 daemons,
# haproxy in front): "postgres x1" is node 1 asked directly, "postgres x3" is haproxy
# spreading over the three. For each endpoint the three targets are measured in turn,
# ROUNDS times (A/B/C/A/B/C...), and the medians printed with the ratio of postgres x1 to
# sled. On two cores three daemons, PostgreSQL, haproxy and wrk share the same two
# cores: the x3 column shows what a request costs through the whole path, not scaling.
#
# Needs wrk, haproxy and PostgreSQL (apt-get install -y wrk haproxy postgresql).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

RADAR=$(realpath "${RADAR_BIN:-target/release/radar}")
ITEMS=${ITEMS:-20000}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-32}
for tool in wrk haproxy python3 curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y wrk haproxy postgresql)" >&2; exit 1; }
done
[ -x "$RADAR" ] || { echo "no binary at $RADAR: run cargo build --release -p radar-cli first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/radar-bench-cluster-XXXXXX)
chmod 755 "$WORK"
SLED=""
cleanup() {
  [ -n "$SLED" ] && kill "$SLED" 2>/dev/null || true
  RADAR_BIN="$RADAR" bash deploy/cluster.sh stop "$WORK/cluster" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Every daemon: the bench account a subscriber, limits out of the way of one client (its
# API key's daily quota too: the count is still kept, one write per request).
export RADAR_COMPLIMENTARY=bench@example.com RADAR_SIGN_IN_RATE=1000000 RADAR_EMAIL_MAX_FREQUENCY=0 \
  RADAR_MAX_CONNECTIONS_PER_PEER=0 RADAR_NO_DEMO=true RADAR_NO_FEED_POLLING=true RADAR_LOG=warn \
  RADAR_API_PREMIUM_QUOTA=1000000000

python3 bench/items.py "$ITEMS" >"$WORK/items.jsonl"

# ---- The embedded store.
"$RADAR" --data "$WORK/sled" items import "$WORK/items.jsonl" >/dev/null
"$RADAR" --data "$WORK/sled" serve --addr 127.0.0.1:0 >"$WORK/sled.out" 2>"$WORK/sled.err" &
SLED=$!
for _ in $(seq 100); do grep -q "anon key" "$WORK/sled.out" 2>/dev/null && break; sleep 0.1; done
SLED_BASE=$(sed -n 's/^listening on //p' "$WORK/sled.out")

# ---- PostgreSQL, three daemons, haproxy.
PORT=$(python3 -c '
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    try:
        for q in range(p, p + 4):
            t = socket.socket(); t.bind(("127.0.0.1", q)); t.close()
        print(p); break
    except OSError:
        pass')
PORT=$PORT RADAR_BIN="$RADAR" bash deploy/cluster.sh start "$WORK/cluster" >"$WORK/cluster.out"
STORE="postgres:///radar?host=$WORK/cluster/pg&user=radar"
"$RADAR" --data "$WORK/import" --store "$STORE" items import "$WORK/items.jsonl" >/dev/null
PG1="http://127.0.0.1:$((PORT + 1))"
PG3="http://127.0.0.1:$PORT"
# Every node's search replica has caught up with the import before anything else (each
# node indexes the items itself, which takes both cores for seconds).
for node in $(seq 1 3); do
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((PORT + node))/api/health/ready")" = 200 ] && break
    sleep 0.1
  done
done

session() {
  local base=$1 grant=$2
  curl -sf "$base/auth/v1/$grant" -H "apikey: $(anon_key "$base")" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench-password"}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}
SLED_TOKEN=$(session "$SLED_BASE" signup)
PG_TOKEN=$(session "$PG1" signup)
api_key() { curl -sf "$1/api/key" -H "authorization: Bearer $2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"])'; }
SLED_KEY=$(api_key "$SLED_BASE" "$SLED_TOKEN")
PG_KEY=$(api_key "$PG1" "$PG_TOKEN")
# Writers: READERS readers, each request from the next one, as many readers write at once
# in real use (one reader's 32 concurrent writes would all queue on that reader's row).
READERS=${READERS:-32}
tokens() { for i in $(seq "$READERS"); do signup "$1" "writer$i@example.com"; done; }
tokens "$SLED_BASE" >"$WORK/tokens-sled"
tokens "$PG1" >"$WORK/tokens-pg"

# Lua scripts: favourite toggles by the writers in turn, and sign-ins.
lua_signin() {
  cat <<LUA
wrk.method = "POST"
wrk.body = '{"email":"bench@example.com","password":"bench-password"}'
wrk.headers["content-type"] = "application/json"
wrk.headers["apikey"] = "$1"
LUA
}
lua_writes "$WORK/tokens-sled" "$ITEMS" >"$WORK/writes-sled.lua"
lua_writes "$WORK/tokens-pg" "$ITEMS" >"$WORK/writes-pg.lua"
lua_signin "$(anon_key "$SLED_BASE")" >"$WORK/signin-sled.lua"
lua_signin "$(anon_key "$PG1")" >"$WORK/signin-pg.lua"

# Measured at rest, as a service that has run a while: a few seconds of marks on every
# target, then the database vacuumed, analysed and checkpointed, so that neither
# autovacuum nor a checkpoint lands inside a measurement. Without it the first
# endpoint's p99 measured them (3.5 to 72 ms from one run to the next); and the marks
# tables must hold rows when analysed: analysed empty, they halved the rate of durable
# marks (2,500 to 3,200/s against 5,400 to 6,000) until autovacuum analysed them again.
for target in "$SLED_BASE writes-sled" "$PG1 writes-pg"; do
  set -- $target
  wrk -t1 -c"$CONNS" -d3s -s "$WORK/$2.lua" "$1" >/dev/null
done
PG_BIN=${RADAR_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
"$PG_BIN/psql" -h "$WORK/cluster/pg" -U radar -d radar -qc 'VACUUM ANALYZE' -c 'CHECKPOINT'

echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; kernel $(uname -r); $(date -u +%Y-%m-%d); $ITEMS items; $CONNS connections"
printf '%-30s %10s %10s %10s %9s %9s %9s %7s\n' endpoint "sled rps" "pg x1 rps" "pg x3 rps" "sled p99" "pg1 p99" "pg3 p99" "pg1/sled"
# bench NAME SLED_ARGS... -- PG_ARGS... (the PG args are used for node 1 and for haproxy,
# with the base URL last).
bench() {
  local name=$1 sled_args=() pg_args=() rows=""
  shift
  while [ "$1" != -- ]; do sled_args+=("$1"); shift; done
  shift
  pg_args=("$@")
  for _ in $(seq "$ROUNDS"); do
    read -r a ap ab <<<"$(measure "${sled_args[@]}")"
    read -r b bp bb <<<"$(measure "${pg_args[@]:0:${#pg_args[@]}-1}" "$PG1${pg_args[-1]}")"
    read -r c cp cb <<<"$(measure "${pg_args[@]:0:${#pg_args[@]}-1}" "$PG3${pg_args[-1]}")"
    [ "$ab$bb$cb" = 000 ] || echo "  warning: non-2xx answers on $name: sled $ab, x1 $bb, x3 $cb" >&2
    rows="$rows $a,$ap,$b,$bp,$c,$cp"
  done
  python3 - "$name" $rows <<'PY'
import statistics, sys
name, rows = sys.argv[1], [tuple(map(float, r.split(","))) for r in sys.argv[2:]]
m = lambda i: statistics.median(r[i] for r in rows)
ratio = statistics.median(r[2] / r[0] for r in rows)
print(f"{name:<30} {m(0):>10,.0f} {m(2):>10,.0f} {m(4):>10,.0f} {m(1):>7.2f}ms {m(3):>7.2f}ms {m(5):>7.2f}ms {ratio:>7.2f}")
PY
}
bench "GET /api/news signed in" -H "authorization: Bearer $SLED_TOKEN" "$SLED_BASE/api/news" \
  -- -H "authorization: Bearer $PG_TOKEN" /api/news
bench "GET /api/news anonymous" "$SLED_BASE/api/news" -- /api/news
bench "GET /api/v1/news?limit=20 by key" -H "x-api-key: $SLED_KEY" "$SLED_BASE/api/v1/news?limit=20" \
  -- -H "x-api-key: $PG_KEY" "/api/v1/news?limit=20"
bench "durable favourites, $READERS readers" -s "$WORK/writes-sled.lua" "$SLED_BASE" -- -s "$WORK/writes-pg.lua" ""
bench "sign-ins (argon2)" -s "$WORK/signin-sled.lua" "$SLED_BASE/auth/v1/token?grant_type=password" \
  -- -s "$WORK/signin-pg.lua" "/auth/v1/token?grant_type=password"
