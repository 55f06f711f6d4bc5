#!/usr/bin/env bash
# Session set-ups per second with no other session and with HOLD idle sessions held,
# for sessions started by the fork server and with --fork-directly, alternating, ROUNDS
# times. Build first: cargo build --release -p reversi-server -p reversi-tests
# Usage: scripts/bench-setups.sh [--damon-both] [ROUNDS] [HOLD] [GAMES]   (defaults 2, 5000, 8000)
# Prints one line a run; where DAMON runs (a kdamond kernel thread), its CPU ticks too.
#
# --damon-both (root, where the kernel's DAMON monitor is on, as on this project's VMs):
# every round runs twice, once with DAMON paused (its kdamonds' state set to off) and
# once with it on again, a minute after its restart (also turned on again when the
# script is interrupted).
# DAMON samples pages and walks every mapping of each one, so its cost grows with the
# number of processes that map the server's pages: this tells its share of the slowdown.
# Pausing it changes the whole machine for a few minutes: run it where nobody else is
# measuring. Should the script be killed outright (SIGKILL), turn it on again by hand:
#   echo on > /sys/kernel/mm/damon/admin/kdamonds/N/state
set -euo pipefail
usage() { sed -n '2,/^#   echo on/p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
esac
damon_both=false
if [ "${1:-}" = --damon-both ]; then damon_both=true; shift; fi
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
rounds=${1:-2} hold=${2:-5000} games=${3:-8000}
unlimited=(--max-pending-per-address 1000000 --max-sessions-per-address 1000000
  --abandon-strikes 1000000 --first-move-timeout 0 --max-sessions 30000 --max-pending 100000)

# The kdamonds that are on now: the only ones this script pauses and restarts.
damon_on=()
for file in /sys/kernel/mm/damon/admin/kdamonds/*/state; do
  [ -e "$file" ] && [ "$(cat "$file")" = on ] && damon_on+=("$file")
done
if $damon_both && [ ${#damon_on[@]} -eq 0 ]; then
  echo "--damon-both: no DAMON monitor is on here" >&2
  exit 1
fi
for file in "${damon_on[@]}"; do
  if $damon_both && ! [ -w "$file" ]; then
    echo "--damon-both: $file is not writable (run as root)" >&2
    exit 1
  fi
done
$damon_both && echo "pausing DAMON in rounds; if this script is killed, restore: echo on > ${damon_on[*]}" >&2
damon() { # on or off; writing the state it already has is refused
  local file
  for file in "${damon_on[@]}"; do
    [ "$(cat "$file")" = "$1" ] || echo "$1" >"$file"
  done
}
$damon_both && trap 'damon on' EXIT
damon_states=(on)
$damon_both && damon_states=(off on)

ticks() { # CPU ticks of every kdamond now running
  local total=0 pid
  for pid in $(pgrep -x 'kdamond\..*' || true); do
    total=$((total + $(awk '{print $14+$15}' "/proc/$pid/stat")))
  done
  echo "$total"
}
settle() { while pgrep -x reversid-game >/dev/null; do sleep 1; done; sleep 2; }
port=$((20000 + RANDOM % 20000))
for round in $(seq "$rounds"); do
  for state in "${damon_states[@]}"; do
    if $damon_both; then
      damon "$state"
      # A restarted monitor starts from coarse regions and refines them over a minute.
      [ "$state" = on ] && sleep 60
    fi
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
        label="round $round"
        $damon_both && label="$label, DAMON $state"
        echo "$label, $mode, $held held: $rate, $errors, kdamond $((after - before)) ticks"
        kill -INT "$server" 2>/dev/null || true
        sleep 0.5
        kill -INT "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
      done
    done
  done
done
