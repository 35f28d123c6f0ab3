#!/usr/bin/env bash
# Search at product scale: index build rate, index size on disk, two-word search p50/p99.
#   bash bench/search.sh                          # 1,000,000 items, 1,000 queries
#   SEARCH_ITEMS=100000 bash bench/search.sh      # a quicker run
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p radar-store --example search_bench -- "${SEARCH_ITEMS:-1000000}" "${SEARCH_QUERIES:-1000}"
