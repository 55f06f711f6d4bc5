#!/usr/bin/env bash
# The 64-player tournament benchmark (issue 27): a round-robin of 64 signed-in text players at
# Tic-Tac-Toe, 2,016 games in 63 rounds of 32, run to the end by a release reversid
# (tests/tests/server_tournament_bench.rs, an #[ignore]d test). Builds what it needs (release),
# then runs it once under `flock -o /tmp/bench.lock`, so that two benchmarks never run at once.
# Prints: the wall time from START to the finished tournament (and the pause it holds round 32
# in, taken out), games per second, and the supervisor's loop stall while round 32's 32 games
# start at once (reversid_loop_turn_longest_seconds before and after, and the
# reversid_loop_turn_seconds buckets between), then the machine's load (uptime).
# Usage: scripts/bench-tournament.sh [PLAYERS]   (an even field, default 64)
set -euo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^# Usage/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
players=${1:-64}
[[ $players =~ ^[0-9]+$ ]] && (( players >= 4 && players % 2 == 0 )) || {
  echo "bench-tournament: \"$players\" is not an even field of 4 or more" >&2
  exit 2
}
cd "$(dirname "$0")/.."
cargo build --release -p reversi-server
cargo test --release -p reversi-tests --test server_tournament_bench --no-run
uptime
REVERSI_BENCH_PLAYERS=$players flock -o /tmp/bench.lock \
  cargo test --release -p reversi-tests --test server_tournament_bench -- --ignored --nocapture
uptime
