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

# wrk's summary as "rps p99_ms non2xx". Each measurement starts on a quiet disk: the page
# cache the previous target left dirty (sled's writes, say) is written out first, so it
# is not flushed during the next target's commits.
measure() {
  local out rps p99 bad
  sync
  out=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency "$@" 2>&1)
  rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v) } else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; print v }' <<<"$out")
  bad=$(awk '/Non-2xx/ { print $5 }' <<<"$out")
  echo "$rps ${p99:-0} ${bad:-0}"
}

# A wrk script of favourite toggles by the readers of TOKENS_FILE in turn, over items
# b0000000 to b(ITEMS-1): lua_writes TOKENS_FILE ITEMS. A reader's POST and DELETE of one
# item come one round of readers apart (one reader's 32 concurrent writes would all queue
# on that reader's row; many readers write at once in real use).
lua_writes() {
  echo "local tokens = {"
  sed 's/.*/  "&",/' "$1"
  cat <<LUA
}
local counter = 0
request = function()
    counter = counter + 1
    local id = string.format("b%07d", (counter * 7919) % $2)
    local method = (math.floor(counter / #tokens) % 2 == 0) and "POST" or "DELETE"
    local token = tokens[(counter % #tokens) + 1]
    return wrk.format(method, "/api/favorites/" .. id, { ["authorization"] = "Bearer " .. token })
end
LUA
}
