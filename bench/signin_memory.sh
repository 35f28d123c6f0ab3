#!/usr/bin/env bash
# Memory under a crowd of sign-ins: starts `radar serve` on a temporary data directory,
# fires N concurrent wrong-password sign-ins (ROUNDS times), and prints the daemon's
# resident memory before, at its peak (VmHWM) and SETTLE seconds after the burst.
#
#   cargo build --release && bash bench/signin_memory.sh
#   N=64 ROUNDS=3 HASH_CONCURRENCY=64 bash bench/signin_memory.sh   # as if unbounded
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${RADAR_BIN:-target/release/radar}
n=${N:-64}
rounds=${ROUNDS:-3}
settle=${SETTLE:-5}
extra=()
[ -n "${HASH_CONCURRENCY:-}" ] && extra+=(--hash-concurrency "$HASH_CONCURRENCY")
source bench/radar_daemon.sh
start_radar "$bin" --no-demo --no-feed-polling --sign-in-rate 1000000 \
  --hash-queue "$n" --hash-wait 600s "${extra[@]}"

python3 - "$base" "$key" "$pid" "$n" "$rounds" "$settle" <<'PY'
import json, sys, time, urllib.request, urllib.error
from concurrent.futures import ThreadPoolExecutor

base, key, pid, n, rounds, settle = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])

def mem():
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]

def post(path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"apikey": key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code

assert post("/auth/v1/signup", {"email": "bench@example.com", "password": "bench-password"}) == 200
rss0, _ = mem()
statuses = {}
start = time.time()
for _ in range(rounds):
    with ThreadPoolExecutor(max_workers=n) as pool:
        for s in pool.map(lambda _: post("/auth/v1/token?grant_type=password",
                                         {"email": "bench@example.com", "password": "wrong"}), range(n)):
            statuses[s] = statuses.get(s, 0) + 1
took = time.time() - start
rss1, peak = mem()
time.sleep(settle)
rss2, _ = mem()
print(f"{rounds} x {n} concurrent sign-ins in {took:.1f} s, answers {dict(sorted(statuses.items()))}")
print(f"RSS before {rss0:.0f} MiB, peak (VmHWM) {peak:.0f} MiB, right after {rss1:.0f} MiB, "
      f"{settle:.0f} s later {rss2:.0f} MiB")
PY
