#!/usr/bin/env bash
# Where a read request's time goes, counted in instructions: repeatable on a busy machine,
# where wall-clock rates drift by a fifth from one minute to the next.
#
#   cargo build --release -p radar-cli && bash bench/profile_http.sh
#   RADAR_BIN=OLD bash bench/profile_http.sh; RADAR_BIN=NEW bash bench/profile_http.sh   # A/B
#   TOP=40 bash bench/profile_http.sh     # more functions per endpoint
#
# It imports ITEMS news-sized items (bench/http.sh's generator), starts the daemon with one
# request thread under valgrind's callgrind, signs up a subscriber with an API key (as
# bench/http.sh does), then for each read endpoint lets wrk (one connection) send requests
# for SECONDS, counting only that window (callgrind_control --zero, then --dump). It prints
# the instructions per request of the daemon's user space, and the functions with the
# largest inclusive share (callgrind_annotate --inclusive=yes), so the routing, each layer,
# the extractors, JSON and hyper's reading and writing can be read off. The kernel's part
# (the socket calls) is not counted: `perf record` sees it (see bench/README.md).
#
# Needs valgrind and wrk. Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."

RADAR=$(realpath "${RADAR_BIN:-target/release/radar}")
ITEMS=${ITEMS:-2000}
SECONDS_EACH=${SECONDS:-6}
TOP=${TOP:-25}
for tool in valgrind callgrind_control callgrind_annotate wrk python3 curl; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y valgrind wrk)" >&2; exit 1; }
done

WORK=$(mktemp -d)
DAEMON=""
cleanup() {
    [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null || true
    [ -n "${KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

# The generator of bench/http.sh, so the pages are the same size.
sed -n '/^python3 - "\$ITEMS" >"\$WORK\/items.jsonl" <<.EOF.$/,/^EOF$/p' bench/http.sh | sed '1d;$d' >"$WORK/gen.py"
python3 "$WORK/gen.py" "$ITEMS" >"$WORK/items.jsonl"
RADAR_LOG=warn "$RADAR" --data "$WORK/data" items import "$WORK/items.jsonl" >/dev/null

peer_cap=()
"$RADAR" serve --help | grep -- --max-connections-per-peer >/dev/null && peer_cap=(--max-connections-per-peer 0)
RADAR_LOG=warn valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
    "$RADAR" --data "$WORK/data" serve --addr 127.0.0.1:0 --workers 1 --no-demo --no-feed-polling \
    --api-premium-quota 1000000000 --sign-in-rate 1000 "${peer_cap[@]}" >"$WORK/serve.out" 2>"$WORK/serve.err" &
DAEMON=$!
for _ in $(seq 600); do grep -q "anon key" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
BASE=$(sed -n 's/^listening on //p' "$WORK/serve.out")
ANON=$(sed -n 's/^anon key: //p' "$WORK/serve.out")
[ -n "$BASE" ] || { echo "the daemon did not start:" >&2; cat "$WORK/serve.err" >&2; exit 1; }
TOKEN=$(curl -sf "$BASE/auth/v1/signup" -H "apikey: $ANON" -H 'content-type: application/json' \
    -d '{"email":"bench@example.com","password":"bench-password"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
RADAR_LOG=warn "$RADAR" --data "$WORK/data" subscribers grant bench@example.com >/dev/null
KEY=$(curl -sf "$BASE/api/key" -H "authorization: Bearer $TOKEN" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"])')

echo "binary: $RADAR; $ITEMS items; $(valgrind --version)"
profile() {
    local name=$1 path=$2; shift 2
    # Warm up (page caches, token cache), then count one window.
    wrk -t1 -c1 -d1s "$@" "$BASE$path" >/dev/null
    callgrind_control --zero "$DAEMON" >/dev/null 2>&1
    local out requests
    out=$(wrk -t1 -c1 -d"${SECONDS_EACH}s" "$@" "$BASE$path")
    callgrind_control --dump="$name" "$DAEMON" >/dev/null 2>&1
    requests=$(awk '/requests in/ { print $1 }' <<<"$out")
    sleep 0.5
    local dump
    dump=$(ls -t "$WORK"/cg.out.* | head -1)
    echo
    echo "== $name: $requests requests"
    callgrind_annotate --auto=no --threshold=100 "$dump" 2>/dev/null >"$WORK/self.txt"
    callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$dump" 2>/dev/null >"$WORK/inclusive.txt"
    python3 - "$WORK/self.txt" "$WORK/inclusive.txt" "$requests" "$TOP" <<'PY'
import re, sys
self_txt, incl_txt, requests, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
line = re.compile(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(.*)$")
def rows(path):
    out, total = [], 0
    for text in open(path):
        m = line.match(text)
        if not m:
            continue
        ir, what = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in what:
            total = ir
        elif ":" in what:
            out.append((ir, what.split(" [")[0].split(":", 1)[1]))
    return total, out
total, selfs = rows(self_txt)
_, incl = rows(incl_txt)
print(f"   {total / requests:,.0f} instructions per request (user space; the kernel's socket work is not counted)")
# Self cost by part of the path, matched on the function's name in this order.
groups = [
    ("allocator (malloc, free, realloc)", r"malloc|free|realloc|calloc|_int_|tcache"),
    ("copies (memcpy, memmove)", r"memcpy|memmove|memset"),
    ("CORS layer (tower-http)", r"tower_http::cors|cors::"),
    ("catch-panic layer", r"catch_panic"),
    ("body timeout and limit layers", r"tower_http::timeout|TimeoutBody|DefaultBodyLimit|limit::"),
    ("compression layer", r"tower_http::compression|compression::"),
    ("axum middleware (from_fn, Next) and boxed services", r"from_fn|Next::run|boxed_clone|BoxCloneSync|clone_box|BoxService|MapFuture|map_future|MapIntoResponse"),
    ("routing (axum Router, matchit)", r"axum::routing|matchit|Router"),
    ("extractors (query, auth, state)", r"extract|FromRequest|serde_urlencoded|form_urlencoded|Query|MaybeAuthUser|ApiKeyUser|from_headers"),
    ("tokens and key hashes (JWT, SHA-256 of API keys)", r"jsonwebtoken|tokens::|hmac|sha2|Sha256"),
    ("store (sled, pages, quotas)", r"radar_store|sled|crossbeam|parking_lot"),
    ("JSON (serde_json)", r"serde_json|serde::"),
    ("header maps and values (http)", r"http::header|HeaderMap|HeaderValue|HeaderName"),
    ("hyper: reading and parsing the request", r"hyper::proto::h1::(role::Server>::parse|io::Buffered.*parse|conn::Conn.*read|role::parse)|httparse|poll_read"),
    ("hyper: writing the answer", r"hyper::proto::h1::(role::.*encode|encode|io::.*write|.*flush|conn::Conn.*write)|poll_write|write_buf|WriteBuf"),
    ("hyper: the rest (dispatch, connection)", r"hyper::"),
    ("tokio (tasks, timers, I/O driver)", r"tokio::|mio::"),
    ("the front, the connection loop and handlers (radar)", r"radar_daemon"),
]
sums = {name: 0 for name, _ in groups}
other = 0
# Frames that were on the stack when the counts were zeroed or dumped (the runtime's loop,
# the thread start) show their whole subtree as their own cost: left out.
for ir, fn in selfs:
    if ir > total / 2:
        continue
    for name, rx in groups:
        if re.search(rx, fn):
            sums[name] += ir
            break
    else:
        other += ir
for name, _ in groups:
    if sums[name]:
        print(f"  {100 * sums[name] / total:5.1f}%  {sums[name] / requests:7,.0f}  {name}")
print(f"  {100 * other / total:5.1f}%  {other / requests:7,.0f}  everything else")
print("   largest inclusive shares:")
for ir, fn in [r for r in incl if r[0] <= total * 0.9][:top]:
    print(f"  {100 * ir / total:5.1f}%  {fn[:140]}")
PY
}
profile anonymous /api/news
profile subscriber /api/news -H "authorization: Bearer $TOKEN"
profile public "/api/v1/news?limit=20" -H "x-api-key: $KEY"
