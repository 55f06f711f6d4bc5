#!/usr/bin/env bash
# Session set-ups per second with no other session and with HOLD idle sessions held,
# for sessions started by the fork server and with --fork-directly, alternating, ROUNDS
# times. Build first: cargo build --release -p reversi-server -p reversi-tests
# Usage: scripts/bench-setups.sh [ROUNDS] [HOLD] [GAMES]   (defaults 2, 5000, 8000)
# Prints one line a run: the rate, the errors, and the server's own CPU time (the
# supervisor, the fork server and every session: utime+stime from /proc/PID/stat, the
# reaped sessions' through the supervisor's cutime+cstime) a session set up, the held
# ones included. After each held run, the ratio of that CPU time to the run without
# held sessions before it: what the held sessions cost each set-up, measured on the
# server itself whatever else the machine runs. Each server keeps its store in a data
# directory of the run's own. The script changes nothing on the host.
set -euo pipefail
usage() { sed -n '2,/^# server itself/p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
esac
for n in "$@"; do
  if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
    echo "bench-setups: \"$n\" is not a positive count" >&2
    usage >&2
    exit 2
  fi
done
[ $# -le 3 ] || { echo "bench-setups: at most three counts (ROUNDS HOLD GAMES)" >&2; exit 2; }
release="${CARGO_TARGET_DIR:-$(dirname "$0")/../target}/release"
for bin in reversid reversi-load; do
  if ! [ -x "$release/$bin" ]; then
    echo "bench-setups: $release/$bin is missing: cargo build --release -p reversi-server -p reversi-tests" >&2
    exit 1
  fi
done
cd "$release"
work=$(mktemp -d /tmp/bench-setups.XXXXXX) # each server's store, removed at the end
trap 'rm -rf "$work"' EXIT
rounds=${1:-2} hold=${2:-5000} games=${3:-8000}
unlimited=(--max-pending-per-address 1000000 --max-sessions-per-address 1000000
  --abandon-strikes 1000000 --first-move-timeout 0 --max-sessions 30000 --max-pending 100000
  --game-starts-per-address 1000000 --game-start-rate 1000000)
tick_hz=$(getconf CLK_TCK)

stat_ticks() { # utime+stime+cutime+cstime of PID $1 (0 once it is gone)
  # The command name (field 2) may hold spaces: count the fields after its ')'.
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  awk '{print $12 + $13 + $14 + $15}' <<<"${stat##*) }"
}
server_ticks() { # CPU ticks of the supervisor $1, its live children and its reaped ones
  # Children first: one reaped between the two reads is counted twice, not lost.
  local total=0 pid
  for pid in $(pgrep -P "$1" || true); do
    total=$((total + $(stat_ticks "$pid")))
  done
  echo $((total + $(stat_ticks "$1")))
}
stop() { # ends the server $1 and waits for its sessions (not anybody else's) to be gone
  local sessions pid
  sessions=$(pgrep -P "$1" || true)
  kill -INT "$1" 2>/dev/null || true
  sleep 0.5
  kill -INT "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  for pid in $sessions; do
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  done
  sleep 2
}
port=$((20000 + RANDOM % 20000))
for round in $(seq "$rounds"); do
  for mode in fork-server fork-directly; do
    alone_ms=""
    for held in 0 "$hold"; do
      port=$((port + 1))
      extra=()
      [ "$mode" = fork-directly ] && extra=(--fork-directly)
      RUST_LOG=warn ./reversid --listen "127.0.0.1:$port" --data-dir "$work/$port" \
        "${unlimited[@]}" "${extra[@]}" 2>/dev/null &
      server=$!
      sleep 1
      before=$(server_ticks "$server")
      out=$(./reversi-load --addr "127.0.0.1:$port" --server-pid "$server" --setup-only \
        --concurrency 32 --games "$games" --latency-games 0 --echo-samples 0 --hold "$held" 2>&1)
      after=$(server_ticks "$server")
      rate=$(grep -o "[0-9]* session set-ups/s" <<<"$out" || echo "failed")
      errors=$(grep -o "^errors *: [0-9]*" <<<"$out" | tr -s ' ' || true)
      ms=$(awk -v t=$((after - before)) -v hz="$tick_hz" -v g=$((games + held)) \
        'BEGIN {printf "%.3f", t * 1000 / hz / g}')
      line="round $round, $mode, $held held: $rate, $errors, server CPU $ms ms a set-up"
      if [ "$held" = 0 ]; then
        alone_ms=$ms
      else
        line="$line, $(awk -v h="$ms" -v a="$alone_ms" \
          'BEGIN {if (a > 0) printf "%.2fx", h / a; else print "n/a"}') of none held"
      fi
      echo "$line"
      stop "$server"
    done
  done
done
