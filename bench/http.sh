#!/usr/bin/env bash
# Radar's read endpoints side by side with nginx serving the identical bytes as static
# files, and durable writes, in one run on this machine.
#
#   cargo build --release -p radar-cli && bash bench/http.sh
#   ITEMS=1000000 DURATION=10 ROUNDS=5 bash bench/http.sh
#   WORKERS=2 bash bench/http.sh        # Radar with a worker per core
#   READS=0 bash bench/http.sh          # the durable writes and the import only
#   bash bench/ab.sh OLD_BIN NEW_BIN    # two builds of Radar against each other
#
# Radar runs with WORKERS request threads (default 1) and nginx with one worker process,
# so each server has one core to answer with and wrk the other. With two workers on two
# cores Radar's workers and wrk are three busy threads on two cores: the kernel preempts
# a worker now and then for a whole time slice, which shows in the p99, not the rate.
#
# For each endpoint it runs wrk (1 thread, 32 connections, loopback) against Radar and
# against nginx, alternating A/B/A/B for ROUNDS pairs (at least 3), and prints the median
# requests per second and p99 latency of each, and the median of the pairs' ratios Radar /
# nginx with their spread (lowest-highest): a machine's speed drifts from one minute to the
# next, and a ratio of two runs side by side holds where two absolute figures do not. The
# header names the CPU and the kernel: quote a figure only with them. Then 32 concurrent
# writers toggle favourites (POST/DELETE), each acknowledged only after it is on disk, in
# ROUNDS runs, and it prints the median writes per second and their spread. It also reports
# the import rate and the daemon's resident memory idle and after the load.
#
# Needs wrk and nginx (apt-get install -y wrk nginx-light). Not a test: nothing fails on a
# slow machine; read the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

RADAR=$(realpath "${RADAR_BIN:-target/release/radar}")
ITEMS=${ITEMS:-20000}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-32}
WORKERS=${WORKERS:-1}
READS=${READS:-1}
for tool in wrk nginx python3 curl; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y wrk nginx-light)" >&2; exit 1; }
done
[ -x "$RADAR" ] || { echo "no binary at $RADAR: run cargo build --release -p radar-cli first" >&2; exit 1; }

WORK=$(mktemp -d)
DAEMON=""
NGINX_PID=""
cleanup() {
    [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# ---- Data: ITEMS news-sized items over a year (a 10-word title, a 45-word summary, a
# 15-word short text and 150 to 250 words of content drawn from a Zipf-like vocabulary, so
# the search index does the work real news gives it), imported with the admin command (timed).
python3 bench/items.py "$ITEMS" >"$WORK/items.jsonl"
item_bytes=$(( $(wc -c <"$WORK/items.jsonl") / ITEMS ))
start=$(date +%s.%N)
RADAR_LOG=warn "$RADAR" --data "$WORK/data" items import "$WORK/items.jsonl" >/dev/null 2>"$WORK/import.err"
end=$(date +%s.%N)
import_rate=$(python3 -c "print(f'{$ITEMS / ($end - $start):,.0f}')")

# ---- Radar. wrk is one client with 32 connections: the cap per client is turned off where
# the binary has one (bench/ab.sh may run a build from before it).
peer_cap=()
"$RADAR" serve --help | grep -- --max-connections-per-peer >/dev/null && peer_cap=(--max-connections-per-peer 0)
RADAR_LOG=warn "$RADAR" --data "$WORK/data" serve --addr 127.0.0.1:0 --workers "$WORKERS" --no-demo --no-feed-polling \
    --api-premium-quota 1000000000 --sign-in-rate 1000 "${peer_cap[@]}" >"$WORK/serve.out" 2>"$WORK/serve.err" &
DAEMON=$!
# A store of a million items takes a while to open (the search index, the trends' counts).
started=$(date +%s.%N)
for _ in $(seq 1200); do grep -q "anon key" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
grep -q "anon key" "$WORK/serve.out" || { echo "the daemon did not start within 120 s:" >&2; cat "$WORK/serve.err" >&2; exit 1; }
ready_s=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
BASE=$(sed -n 's/^listening on //p' "$WORK/serve.out")
ANON=$(sed -n 's/^anon key: //p' "$WORK/serve.out")
TOKEN=$(curl -sf "$BASE/auth/v1/signup" -H "apikey: $ANON" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench-password"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
RADAR_LOG=warn "$RADAR" --data "$WORK/data" subscribers grant bench@example.com >/dev/null
KEY=$(curl -sf "$BASE/api/key" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"])')
sleep 1
idle_rss=$(rss_mb "$DAEMON")

# ---- nginx on the same bytes.
mkdir -p "$WORK/www" && chmod 755 "$WORK" "$WORK/www"
curl -sf "$BASE/api/news" -o "$WORK/www/anonymous.json"
curl -sf "$BASE/api/news" -H "authorization: Bearer $TOKEN" -o "$WORK/www/subscriber.json"
curl -sf "$BASE/api/v1/news?limit=20" -H "x-api-key: $KEY" -o "$WORK/www/public.json"
chmod 644 "$WORK"/www/*.json
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err;
events { worker_connections 1024; }
http {
    access_log off;
    default_type application/json;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
EOF
nginx -c "$WORK/nginx.conf" -p "$WORK" &
NGINX_PID=$!
sleep 0.5

# wrk's summary as "rps p99_ms non2xx".
measure() {
    local out
    out=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "$@" 2>&1)
    local rps p99 bad
    rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
    p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$out")
    bad=$(awk '/Non-2xx/ { print $5 }' <<<"$out")
    echo "$rps ${p99:-0} ${bad:-0}"
}

echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; kernel $(uname -r); $(date -u +%Y-%m-%d)"
printf '%-34s %12s %12s %10s %10s %7s  %s\n' endpoint "radar rps" "nginx rps" "radar p99" "nginx p99" ratio "ratio spread"
bench_read() {
    local key=$1 name=$2 file=$3 path=$4; shift 4
    local pairs="" r rp rb n np nb
    for _ in $(seq "$ROUNDS"); do
        read -r r rp rb <<<"$(measure "$@" "$BASE$path")"
        read -r n np nb <<<"$(measure "http://127.0.0.1:$NGINX_PORT/$file")"
        [ "$rb" = 0 ] || echo "  warning: $rb non-2xx answers from Radar on $path" >&2
        pairs="$pairs $r,$rp,$n,$np"
    done
    python3 - "$name" $pairs <<'EOF'
import statistics, sys
name, pairs = sys.argv[1], [tuple(map(float, p.split(","))) for p in sys.argv[2:]]
med = lambda xs: statistics.median(xs)
ratios = [r / n for r, _, n, _ in pairs]
print(f"{name:<34} {med([p[0] for p in pairs]):>12,.0f} {med([p[2] for p in pairs]):>12,.0f} "
      f"{med([p[1] for p in pairs]):>8.2f}ms {med([p[3] for p in pairs]):>8.2f}ms "
      f"{med(ratios):>7.2f}  {min(ratios):.2f}-{max(ratios):.2f}")
EOF
    # For bench/ab.sh: the median ratio to nginx and the median rate, one line per endpoint.
    [ -z "${RESULTS:-}" ] || python3 -c "
import statistics, sys
pairs = [tuple(map(float, p.split(','))) for p in sys.argv[2:]]
print(sys.argv[1], statistics.median(p[0] / p[2] for p in pairs), statistics.median(p[0] for p in pairs))" \
        "$key" $pairs >>"$RESULTS"
}
if [ "$READS" != 0 ]; then
    bench_read anonymous "GET /api/news anonymous" anonymous.json /api/news
    bench_read subscriber "GET /api/news subscriber" subscriber.json /api/news -H "authorization: Bearer $TOKEN"
    bench_read public "GET /api/v1/news?limit=20 (API key)" public.json "/api/v1/news?limit=20" -H "x-api-key: $KEY"
fi

# ---- Durable writes: each connection toggles favourites on its own items.
cat >"$WORK/writes.lua" <<EOF
local counter = 0
local items = $ITEMS
setup = function(thread) end
request = function()
    counter = counter + 1
    local id = string.format("b%07d", (counter * 7919) % items)
    local method = (counter % 2 == 0) and "DELETE" or "POST"
    return wrk.format(method, "/api/favorites/" .. id, { ["authorization"] = "Bearer $TOKEN" })
end
EOF
# ROUNDS runs, like the reads: a run's rate rides on the disk's sync latency, which on a
# shared host can swing by 2x from one run to the next. The spread is that of the runs.
writes=""
for _ in $(seq "$ROUNDS"); do
    read -r w wp wb <<<"$(measure -s "$WORK/writes.lua" "$BASE")"
    [ "$wb" = 0 ] || echo "  warning: $wb non-2xx answers to writes" >&2
    writes="$writes $w,$wp"
done
python3 - $writes <<'EOF'
import statistics, sys
runs = [tuple(map(float, r.split(","))) for r in sys.argv[1:]]
rates = [r for r, _ in runs]
print(f"{'durable favourite toggles':<34} {statistics.median(rates):>12,.0f} {'':>12} "
      f"{statistics.median(p for _, p in runs):>8.2f}ms {'':>10} {'':>7}  "
      f"{min(rates):,.0f}-{max(rates):,.0f} ({len(runs)} runs)")
EOF
w=$(python3 -c 'import statistics, sys; print(statistics.median(float(r.split(",")[0]) for r in sys.argv[1:]))' $writes)
[ -z "${RESULTS:-}" ] || { echo "writes 1 $w"; echo "import 1 ${import_rate//,/}"; } >>"$RESULTS"
echo
echo "items: $ITEMS of $item_bytes bytes each as JSON, imported at $import_rate items/s (search index included); Radar with $WORKERS worker(s), nginx with 1"
echo "daemon RSS: idle ${idle_rss} MB, after the load $(rss_mb "$DAEMON") MB; ready ${ready_s} s after it started"
