#!/usr/bin/env bash
# Session set-ups per second with no other session and with HOLD idle sessions held,
# for sessions started by the fork server and with --fork-directly, alternating, ROUNDS
# times. Build first: cargo build --release -p reversi-server -p reversi-tests
# Usage: scripts/bench-setups.sh [ROUNDS] [HOLD] [GAMES]   (defaults 2, 5000, 8000)
# Prints one line a run; where DAMON runs (a kdamond kernel thread), its CPU ticks too.
set -euo pipefail
cd "$(dirname "$0")/../target/release"
rounds=${1:-2} hold=${2:-5000} games=${3:-8000}
unlimited=(--max-pending-per-address 1000000 --max-sessions-per-address 1000000
  --abandon-strikes 1000000 --first-move-timeout 0 --max-sessions 30000 --max-pending 100000)
kdamond=$(pgrep -x kdamond.0 || true)
ticks() { if [ -n "$kdamond" ]; then awk '{print $14+$15}' "/proc/$kdamond/stat"; else echo 0; fi; }
settle() { while pgrep -x reversid-game >/dev/null; do sleep 1; done; sleep 2; }
port=$((20000 + RANDOM % 20000))
for round in $(seq "$rounds"); do
  for mode in fork-server fork-directly; do
    for held in 0 "$hold"; do
      port=$((port + 1))
      extra=()
      [ "$mode" = fork-directly ] && extra=(--fork-directly)
      settle
      RUST_LOG=warn ./reversid --listen "127.0.0.1:$port" "${unlimited[@]}" "${extra[@]}" 2>/dev/null &
      server=$!
      sleep 1
      before=$(ticks)
      out=$(./reversi-load --addr "127.0.0.1:$port" --server-pid "$server" --setup-only \
        --concurrency 32 --games "$games" --latency-games 0 --echo-samples 0 --hold "$held" 2>&1)
      after=$(ticks)
      rate=$(grep -o "[0-9]* session set-ups/s" <<<"$out" || echo "failed")
      errors=$(grep -o "^errors *: [0-9]*" <<<"$out" | tr -s ' ' || true)
      echo "round $round, $mode, $held held: $rate, $errors, kdamond $((after - before)) ticks"
      kill -INT "$server" 2>/dev/null || true
      sleep 0.5
      kill -INT "$server" 2>/dev/null || true
      wait "$server" 2>/dev/null || true
    done
  done
done
