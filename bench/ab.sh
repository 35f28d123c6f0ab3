#!/usr/bin/env bash
# Two builds of Radar side by side: runs bench/http.sh with OLD, then NEW, PAIRS times
# (A/B/A/B...), and prints for each measure the median over the pairs of NEW / OLD, with
# the lowest and highest pair. Reads are compared by their ratio to nginx in the same run
# (so the machine's drift between two runs cancels out), durable writes and the import by
# their rates.
#
#   git worktree add /tmp/old HEAD~3 && cargo build --release -p radar-cli --manifest-path /tmp/old/Cargo.toml
#   bash bench/ab.sh /tmp/old/target/release/radar target/release/radar
#   PAIRS=5 ITEMS=1000000 bash bench/ab.sh OLD NEW
#   READS=0 PAIRS=5 bash bench/ab.sh OLD NEW    # durable writes and the import only
#
# Not a test: nothing fails; read the ratios (1.00 is no change, above is faster).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bash bench/ab.sh OLD_RADAR_BIN NEW_RADAR_BIN" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
PAIRS=${PAIRS:-3}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; kernel $(uname -r); $(date -u +%Y-%m-%d)"
for pair in $(seq "$PAIRS"); do
    for side in old new; do
        bin=$OLD
        [ "$side" = new ] && bin=$NEW
        echo "== pair $pair, $side ($bin)"
        RESULTS="$OUT/$side.$pair" RADAR_BIN="$bin" bash bench/http.sh
    done
done

python3 - "$OUT" "$PAIRS" <<'PY'
import statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def load(path):
    rows = {}
    for line in open(path):
        key, ratio, rate = line.split()
        rows[key] = float(rate) if key in ("writes", "import") else float(ratio)
    return rows
runs = [(load(f"{out}/old.{p}"), load(f"{out}/new.{p}")) for p in range(1, pairs + 1)]
print()
print(f"{'measure':<12} {'new/old median':>15}  pairs")
for key in runs[0][0]:
    ratios = [new[key] / old[key] for old, new in runs]
    listed = " ".join(f"{r:.2f}" for r in ratios)
    print(f"{key:<12} {statistics.median(ratios):>15.2f}  {listed}")
PY
