#!/usr/bin/env bash
# Start-up benchmark of the terminal reader: the time from starting `radar tui` to its
# first full frame, i.e. the feed drawn from the daemon's demo data (the moment the
# feed's "Subscribe Now" footer is on screen, which needs the loaded page).
#
# It starts a daemon with the demo data on a free port of 127.0.0.1, then lets hyperfine
# run `radar tui` in a detached tmux session and poll `capture-pane` until the feed is
# drawn. A baseline that starts a shell printing one word in the same way measures what
# tmux and the polling cost by themselves; the difference is the reader's own start-up.
#
#   cargo build --release && bench/tui_startup.sh            # 30 runs
#   RUNS=100 RADAR_BIN=target/debug/radar bench/tui_startup.sh
#
# Needs tmux and hyperfine (apt-get install -y tmux hyperfine). Not a test: nothing fails
# on a slow machine.
set -euo pipefail

cd "$(dirname "$0")/.."
RADAR=$(realpath "${RADAR_BIN:-target/release/radar}")
RUNS=${RUNS:-30}
for tool in tmux hyperfine; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y $tool)" >&2; exit 1; }
done
[ -x "$RADAR" ] || { echo "no binary at $RADAR: run cargo build --release first" >&2; exit 1; }

WORK=$(mktemp -d)
SOCKET="radar-bench-$$"
DAEMON=""
cleanup() {
    local socket_path
    socket_path=$(tmux -L "$SOCKET" display-message -p '#{socket_path}' 2>/dev/null || true)
    tmux -L "$SOCKET" kill-server 2>/dev/null || true
    [ -n "$socket_path" ] && rm -f "$socket_path"
    [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

RADAR_LOG=warn "$RADAR" --data "$WORK/data" serve --addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
DAEMON=$!
for _ in $(seq 300); do
    grep -q '^anon key' "$WORK/serve.out" 2>/dev/null && break
    sleep 0.1
done
BASE=$(sed -n 's/^listening on //p' "$WORK/serve.out")
[ -n "$BASE" ] || { echo "the daemon did not start:" >&2; cat "$WORK/serve.err" >&2; exit 1; }

# One tmux server for all runs, kept alive by a session that only sleeps, so no run pays
# for starting the server.
tmux -L "$SOCKET" new-session -d -s hold -x 120 -y 40 "sleep 100000"

cat >"$WORK/probe.sh" <<PROBE
#!/usr/bin/env bash
# One run: start the program in a 120x40 pane, wait until the marker is drawn, stop it.
case "\$1" in
    baseline) cmd="echo ready; sleep 60"; marker="ready" ;;
    tui) cmd="env RADAR_CONFIG_DIR='$WORK/config' '$RADAR' tui --server '$BASE'"; marker="Subscribe Now" ;;
esac
tmux -L "$SOCKET" new-session -d -s run -x 120 -y 40 "\$cmd"
until tmux -L "$SOCKET" capture-pane -p -t run 2>/dev/null | grep -q "\$marker"; do sleep 0.002; done
tmux -L "$SOCKET" kill-session -t run
PROBE
chmod +x "$WORK/probe.sh"

echo "radar: $RADAR"
echo "daemon: $BASE (demo data)"
hyperfine --warmup 3 --runs "$RUNS" \
    -n "tmux + polling baseline" "$WORK/probe.sh baseline" \
    -n "radar tui: first full frame" "$WORK/probe.sh tui"
