# Sourced by scripts that need a throwaway `radar serve`:
#   start_radar BIN [serve flags...]
# starts it on a temporary data directory and a free port on 127.0.0.1, sets $base
# (http://127.0.0.1:PORT), $key (the anon key), $pid and $dir, and stops it and removes
# the directory when the script exits.

start_radar() {
  local bin=$1
  shift
  dir=$(mktemp -d)
  pid=
  trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi; rm -rf "$dir"' EXIT
  "$bin" --data "$dir/data" serve --addr 127.0.0.1:0 "$@" >"$dir/out" 2>"$dir/log" &
  pid=$!
  for _ in $(seq 300); do
    grep -q '^anon key: ' "$dir/out" 2>/dev/null && break
    sleep 0.1
  done
  base=$(sed -n 's/^listening on //p' "$dir/out")
  key=$(sed -n 's/^anon key: //p' "$dir/out")
  if [ -z "$key" ]; then
    echo "radar serve did not start:" >&2
    cat "$dir/log" >&2
    return 1
  fi
}
