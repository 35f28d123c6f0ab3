#!/usr/bin/env bash
# Benchmarks. Speed and memory are measured here, never in timed tests.
#   bash bench/run.sh              # store at product scale (1,000,000 items, 100,000 users)
#   ITEMS=100000 USERS=10000 bash bench/run.sh   # a quicker run
set -euo pipefail
cd "$(dirname "$0")/.."
# The scripts below start the release binary.
cargo build --release -q -p radar-cli
cargo run --release -q -p radar-store --example feed_bench -- "${ITEMS:-1000000}" "${USERS:-100000}"
for extra in bench/*.sh; do
  # run.sh itself, and radar_daemon.sh, which the others source.
  case "$extra" in bench/run.sh | bench/radar_daemon.sh) continue ;; esac
  echo "== $extra"
  bash "$extra"
done
