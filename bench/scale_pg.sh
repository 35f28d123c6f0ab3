#!/usr/bin/env bash
# Whether a request's cost over PostgreSQL grows with the data: one daemon on a small
# install (20,000 items, no other accounts) beside one on a large one (a million items,
# a hundred thousand accounts with a session each and ten read items each), both in one
# PostgreSQL, measured in turn (A/B/A/B...) with wrk: the signed-in first page, a later
# page (built per request: the walk past the reader's marks), the anonymous page and
# durable favourite toggles. Medians of ROUNDS pairs, and the large/small ratio.
#
#   cargo build --release -p radar-cli && bash bench/scale_pg.sh
#   LARGE=200000 USERS=20000 bash bench/scale_pg.sh   # a quicker look
#
# The large install's items come from bench/items.py (news-sized: a 45-word summary,
# 150 to 250 words of content), imported with `radar --store URL items import`; the
# other accounts, their sessions and marks are written by SQL (copies of a real
# account's records with new ids: signing up a hundred thousand accounts through argon2
# would take this machine half an hour and measure nothing more).
#
# Needs wrk and PostgreSQL (apt-get install -y wrk postgresql).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

RADAR=$(realpath "${RADAR_BIN:-target/release/radar}")
SMALL=${SMALL:-20000}
LARGE=${LARGE:-1000000}
USERS=${USERS:-100000}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-32}
READERS=${READERS:-32}
PG_BIN=${RADAR_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
for tool in wrk python3 curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y wrk postgresql)" >&2; exit 1; }
done
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL is not installed: apt-get install -y postgresql" >&2; exit 1; }
[ -x "$RADAR" ] || { echo "no binary at $RADAR: run cargo build --release -p radar-cli first" >&2; exit 1; }

WORK=$(mktemp -d /tmp/radar-bench-scale-XXXXXX)
chmod 755 "$WORK"
PIDS=()
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_pg "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

export RADAR_COMPLIMENTARY=bench@example.com RADAR_SIGN_IN_RATE=1000000 RADAR_EMAIL_MAX_FREQUENCY=0 \
  RADAR_MAX_CONNECTIONS_PER_PEER=0 RADAR_NO_DEMO=true RADAR_NO_FEED_POLLING=true RADAR_LOG=warn

# ---- PostgreSQL, as deploy/cluster.sh starts it (fsync and synchronous_commit on).
mkdir -p "$WORK/pg"
[ "$(id -u)" = 0 ] && chown postgres: "$WORK/pg"
as_pg "$PG_BIN/initdb" -D "$WORK/pg/data" -A trust -U radar -E UTF8 --locale=C >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w -t 60 start \
  -o "-k $WORK/pg -c listen_addresses='' -c max_connections=100" >/dev/null
psql_in() { "$PG_BIN/psql" -h "$WORK/pg" -U radar -d "$1" -v ON_ERROR_STOP=1 -qtA "${@:2}"; }
url() { echo "postgres:///$1?host=$WORK/pg&user=radar&pool_size=16"; }

# ---- The two installs: items imported, a daemon on each.
for name in small large; do
  psql_in postgres -c "CREATE DATABASE $name"
done
echo "generating $LARGE items..." >&2
python3 bench/items.py "$SMALL" >"$WORK/small.jsonl"
python3 bench/items.py "$LARGE" >"$WORK/large.jsonl"
for name in small large; do
  start=$(date +%s)
  "$RADAR" --data "$WORK/import-$name" --store "$(url "$name")" items import "$WORK/$name.jsonl" >/dev/null
  echo "imported $name in $(( $(date +%s) - start )) s" >&2
  rm "$WORK/$name.jsonl"
done
serve() {
  local name=$1
  "$RADAR" --data "$WORK/node-$name" --store "$(url "$name")" serve --addr 127.0.0.1:0 \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
}
serve small
serve large
# A node builds its search replica before it listens (about a minute at a million items).
base() {
  for _ in $(seq 6000); do grep -q '^listening on' "$WORK/$1.out" 2>/dev/null && break; sleep 0.1; done
  sed -n 's/^listening on //p' "$WORK/$1.out"
}
SMALL_BASE=$(base small)
LARGE_BASE=$(base large)
# Each node's search replica holds every item before anything is measured.
start=$(date +%s)
for b in "$SMALL_BASE" "$LARGE_BASE"; do
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 600 "$b/api/health/ready")" = 200 ]; do sleep 1; done
done
echo "replicas ready after $(( $(date +%s) - start )) s" >&2

for name in small large; do
  b=$([ "$name" = small ] && echo "$SMALL_BASE" || echo "$LARGE_BASE")
  signup "$b" bench@example.com >"$WORK/token-$name"
  for i in $(seq "$READERS"); do signup "$b" "writer$i@example.com"; done >"$WORK/tokens-$name"
done

# ---- The large install's other accounts: copies of the bench account's records with
# new ids, a session each, and ten read items each (the marks table a hundred thousand
# readers leave behind).
start=$(date +%s)
psql_in large <<SQL
BEGIN;
INSERT INTO users (id, email, record)
  SELECT 'filler-' || g, 'filler' || g || '@example.com',
         jsonb_set(jsonb_set(u.record::jsonb, '{id}', to_jsonb('filler-' || g)),
                   '{email}', to_jsonb('filler' || g || '@example.com'))::json
  FROM users u, generate_series(1, $USERS) g WHERE u.email = 'bench@example.com';
UPDATE counters SET value = value + $USERS WHERE name = 'users';
INSERT INTO sessions (id, user_id, record)
  SELECT 'filler-session-' || g, 'filler-' || g,
         jsonb_set(jsonb_set(s.record::jsonb, '{id}', to_jsonb('filler-session-' || g)),
                   '{user_id}', to_jsonb('filler-' || g))::json
  FROM (SELECT s.record FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE u.email = 'bench@example.com' LIMIT 1) s, generate_series(1, $USERS) g;
INSERT INTO marks (reader, item, read_at)
  SELECT 'filler-' || (g % $USERS + 1), 'b' || lpad(((g::bigint * 7919) % $LARGE)::text, 7, '0'), now()
  FROM generate_series(1, $USERS * 10) g
  ON CONFLICT DO NOTHING;
INSERT INTO reader_state (reader, read, version)
  SELECT reader, count(*), 1 FROM marks WHERE reader LIKE 'filler-%' GROUP BY reader;
COMMIT;
VACUUM ANALYZE;
CHECKPOINT;
SQL
# The small install gets a few seconds of marks before it is analysed: analysed while
# empty, its marks tables would halve the marks rate (see bench/cluster.sh).
echo "wrote $USERS accounts, sessions and $(psql_in large -c "SELECT count(*) FROM marks") marks in $(( $(date +%s) - start )) s" >&2
for name in small large; do
  echo "$name: $(psql_in "$name" -c "SELECT count(*) FROM items") items, $(psql_in "$name" -c "SELECT count(*) FROM users") accounts, database $(psql_in "$name" -c "SELECT pg_size_pretty(pg_database_size('$name'))")"
done

# A later page: the cursor of the bench reader's fifth page.
cursor() {
  local b=$1 token=$2 c=""
  for _ in 1 2 3 4; do
    c=$(curl -sf "$b/api/news${c:+?cursor=$c}" -H "authorization: Bearer $token" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["nextCursor"])')
  done
  echo "$c"
}
lua_writes "$WORK/tokens-small" "$SMALL" >"$WORK/writes-small.lua"
lua_writes "$WORK/tokens-large" "$SMALL" >"$WORK/writes-large.lua"
# At rest, as a service that has run a while: a few seconds of marks on each, then both
# databases vacuumed, analysed and checkpointed (see bench/cluster.sh for why the marks
# come first).
wrk -t1 -c"$CONNS" -d3s -s "$WORK/writes-small.lua" "$SMALL_BASE" >/dev/null
wrk -t1 -c"$CONNS" -d3s -s "$WORK/writes-large.lua" "$LARGE_BASE" >/dev/null
for name in small large; do psql_in "$name" -c 'VACUUM ANALYZE' -c 'CHECKPOINT'; done

echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; kernel $(uname -r); $(date -u +%Y-%m-%d); $CONNS connections, medians of $ROUNDS pairs"
printf '%-32s %11s %11s %10s %10s %12s\n' endpoint "small rps" "large rps" "small p99" "large p99" "large/small"
# bench NAME ARGS_FOR(small)... -- ARGS_FOR(large)...
bench() {
  local name=$1 a_args=() b_args=() rows=""
  shift
  while [ "$1" != -- ]; do a_args+=("$1"); shift; done
  shift
  b_args=("$@")
  for _ in $(seq "$ROUNDS"); do
    read -r a ap ab <<<"$(measure "${a_args[@]}")"
    read -r b bp bb <<<"$(measure "${b_args[@]}")"
    [ "$ab$bb" = 00 ] || echo "  warning: non-2xx answers on $name: small $ab, large $bb" >&2
    rows="$rows $a,$ap,$b,$bp"
  done
  python3 - "$name" $rows <<'PY'
import statistics, sys
name, rows = sys.argv[1], [tuple(map(float, r.split(","))) for r in sys.argv[2:]]
m = lambda i: statistics.median(r[i] for r in rows)
ratio = statistics.median(r[2] / r[0] for r in rows)
print(f"{name:<32} {m(0):>11,.0f} {m(2):>11,.0f} {m(1):>8.2f}ms {m(3):>8.2f}ms {ratio:>12.2f}")
PY
}
ST=$(cat "$WORK/token-small")
LT=$(cat "$WORK/token-large")
bench "GET /api/news signed in" -H "authorization: Bearer $ST" "$SMALL_BASE/api/news" \
  -- -H "authorization: Bearer $LT" "$LARGE_BASE/api/news"
bench "GET /api/news fifth page" -H "authorization: Bearer $ST" "$SMALL_BASE/api/news?cursor=$(cursor "$SMALL_BASE" "$ST")" \
  -- -H "authorization: Bearer $LT" "$LARGE_BASE/api/news?cursor=$(cursor "$LARGE_BASE" "$LT")"
bench "GET /api/news anonymous" "$SMALL_BASE/api/news" -- "$LARGE_BASE/api/news"
bench "durable favourites, $READERS readers" -s "$WORK/writes-small.lua" "$SMALL_BASE" \
  -- -s "$WORK/writes-large.lua" "$LARGE_BASE"
