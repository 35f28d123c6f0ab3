# Shared by the benchmarks that compare targets with wrk (bench/cluster.sh,
# bench/scale_pg.sh): sourced, not run. They set CONNS and DURATION first.

# The install's anonymous key.
anon_key() { curl -sf "$1/api/config" | python3 -c 'import json,sys; print(json.load(sys.stdin)["anonKey"])'; }

# An access token for a new account: signup BASE EMAIL.
signup() {
  curl -sf "$1/auth/v1/signup" -H "apikey: $(anon_key "$1")" -H 'content-type: application/json' \
    -d "{\"email\":\"$2\",\"password\":\"bench-password\"}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
}

# Waits (up to 15 s) until the CPUs are idle: busy under 10% over half a second. What
# the previous target left running (a store's background flush and compaction after its
# writes, autovacuum after a run of marks) then does not run during the next target's
# measurement, which it would otherwise slow by a share no one chose.
quiet() {
  local i a b busy
  for i in $(seq 30); do
    a=($(head -1 /proc/stat)); sleep 0.5; b=($(head -1 /proc/stat))
    local total=0 idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) k
    for k in 1 2 3 4 5 6 7 8; do total=$(( total + b[k] - a[k] )); done
    busy=$(( total > 0 ? 100 * (total - idle) / total : 0 ))
    [ "$busy" -lt 10 ] && return 0
  done
  echo "note: the machine stayed busy (${busy}% of the CPUs) before this measurement" >&2
}

# wrk's summary as "rps p99_ms non2xx". Each measurement starts on a quiet disk and quiet
# CPUs: the page cache the previous target left dirty (sled's writes, say) is written out
# first, so it is not flushed during the next target's commits, and whatever it left
# running has finished (see quiet).
measure() {
  local out rps p99 bad
  sync
  quiet
  out=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "$@" 2>&1)
  rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$out")
  bad=$(awk '/Non-2xx/ { print $5 }' <<<"$out")
  echo "$rps ${p99:-0} ${bad:-0}"
}

# A wrk script of favourite toggles by the readers of TOKENS_FILE in turn, over items
# b0000000 to b(ITEMS-1): lua_writes TOKENS_FILE ITEMS. Each reader favourites an item in
# one round of readers and takes it back in the next, so every request changes a mark
# (one reader's 32 concurrent writes would all queue on that reader's row; many readers
# write at once in real use). The items of a round are distinct, 7,919 being prime to the
# item counts used.
lua_writes() {
  echo "local tokens = {"
  sed 's/.*/  "&",/' "$1"
  cat <<LUA
}
local counter = 0
request = function()
    local round = math.floor(counter / #tokens)
    local reader = counter % #tokens
    counter = counter + 1
    local id = string.format("b%07d", ((math.floor(round / 2) * #tokens + reader) * 7919) % $2)
    local method = (round % 2 == 0) and "POST" or "DELETE"
    return wrk.format(method, "/api/favorites/" .. id, { ["authorization"] = "Bearer " .. tokens[reader + 1] })
end
LUA
}
