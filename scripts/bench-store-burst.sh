#!/usr/bin/env bash
# The store under a burst (issue 26): GAMES idle Reversi games are held (hold-worker
# processes of reversi-load, 4,000 games each), then every one ends at once (the holders
# exit: each session sees its players gone, a binary player has no grace, and the game
# ends), and the server stores them all. Once per backend: SQLite in a fresh data
# directory, then PostgreSQL on a private server the script starts (initdb and pg_ctl
# from /usr/lib/postgresql/*/bin, as the `postgres` user when run as root; fsync on, as in
# production; skipped with a message where PostgreSQL is not installed).
# Build first: cargo build --release -p reversi-server -p reversi-tests (BIN_DIR=DIR: binaries from DIR)
# PERF=FILE: the supervisor's loop thread profiled with perf during each burst, into FILE-BACKEND
# Usage: scripts/bench-store-burst.sh [GAMES] [BACKEND...]   (defaults 10000, sqlite postgres)
# Prints, a backend: the seconds from the holders' exit to the first and to the last game
# stored (`reversid_games_stored_total`, scraped from GET /metrics every SCRAPE seconds,
# default 0.25), games stored a second over that span, the rows in the games table after,
# journals left, the longest turn of the supervisor's loop during the burst (the largest
# `reversid_loop_turn_longest_seconds` scraped, which covers the last 10 to 20 s) and the
# burst's turns by bucket of `reversid_loop_turn_seconds` (after minus before); the longest
# turn's CPU time too (`reversid_loop_turn_cpu_longest_seconds`: the supervisor's own work,
# without the waits for a core that 10,000 exiting sessions on 2 cores add); and the
# server's own line at exit (games archived, the longest the loop spent on the archive);
# and the burst's long turns (3 ms of the loop thread's CPU or more, which the server logs
# at debug with where their CPU went: reversid::supervisor::budget): how many, the worst three.
# Run one benchmark at a time: flock -o /tmp/bench.lock scripts/bench-store-burst.sh
set -euo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^# Run one/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
games=${1:-10000}
shift || true
if [ $# -gt 0 ]; then backends=("$@"); else backends=(sqlite postgres); fi
[[ $games =~ ^[0-9]+$ ]] || { echo "bench-store-burst: \"$games\" is not a count" >&2; exit 2; }
release="${BIN_DIR:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}/release}"
for bin in reversid reversi-load; do
  [ -x "$release/$bin" ] || {
    echo "bench-store-burst: $release/$bin is missing: cargo build --release -p reversi-server -p reversi-tests" >&2
    exit 1
  }
done
scrape_every=${SCRAPE:-0.25}
work=$(mktemp -d /tmp/bench-store-burst.XXXXXX)
chmod 755 "$work"
pg_bin= pg_dir= server= feeders=()
cleanup() { # what this script started, should it stop early
  kill "${feeders[@]}" 2>/dev/null || true
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null && wait "$server" || true; fi
  if [ -n "$pg_dir" ]; then pg stop -w -m immediate -D "$pg_dir/data" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN {printf "%.2f", b - a}'; }
metric() { # the value of series $1 (name and labels, exactly) in the scrape file $2
  awk -v s="$1" '$1 == s {print $2; found = 1} END {if (!found) print 0}' "$2"
}
scrape() { curl -s --max-time 5 "http://$addr/metrics" >"$1" || : >"$1"; }

pg() { # one of PostgreSQL's programs, as postgres when we are root
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$pg_bin/$1" "${@:2}"; else "$pg_bin/$1" "${@:2}"; fi
}
start_postgres() { # sets pg_dir and conninfo (empty if PostgreSQL is not installed)
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  conninfo=
  [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] || return 0
  pg_dir="$work/pg"
  mkdir -p "$pg_dir"
  [ "$(id -u)" != 0 ] || chown -R postgres "$pg_dir"
  pg initdb -A trust -U postgres -E UTF8 --no-locale -D "$pg_dir/data" >/dev/null
  pg pg_ctl start -w -D "$pg_dir/data" -l "$pg_dir/log" \
    -o "-c listen_addresses='' -k $pg_dir -p 5432" >/dev/null
  pg createdb -h "$pg_dir" -p 5432 -U postgres reversid
  conninfo="host=$pg_dir port=5432 user=postgres dbname=reversid"
}
rows() { # the games table's rows, in the backend $1
  if [ "$1" = sqlite ]; then
    sqlite3 "$work/data/reversid.sqlite3" "SELECT count(*) FROM games" 2>/dev/null || echo "?"
  else
    (cd / && pg psql -h "$pg_dir" -p 5432 -U postgres -d reversid -tAc "SELECT count(*) FROM games") || echo "?"
  fi
}

hold() { # holds $games games; sets feeders (whose end ends the games) and workers
  local left=$games i=0 k
  feeders=() workers=()
  while [ "$left" -gt 0 ]; do
    k=$((left < 4000 ? left : 4000))
    left=$((left - k)) i=$((i + 1))
    mkfifo "$work/in$i"
    "$release/reversi-load" --addr "$addr" --hold-worker "$k" <"$work/in$i" >"$work/out$i" 2>&1 &
    workers+=($!)
    sleep 100000 >"$work/in$i" &
    feeders+=($!)
  done
  for j in $(seq "$i"); do
    until grep -q held "$work/out$j" 2>/dev/null; do
      if ! kill -0 "${workers[$((j - 1))]}" 2>/dev/null || grep -qi "panicked\|error" "$work/out$j"; then
        echo "hold worker $j failed: $(head -3 "$work/out$j")" >&2
        exit 1
      fi
      sleep 0.5
    done
  done
}

# The burst's turns by bucket: "≤LE: N" for each bucket that gained turns (after minus before).
turn_buckets() {
  awk 'FNR == NR && /^reversid_loop_turn_seconds_bucket/ {b[$1] = $2; next}
       /^reversid_loop_turn_seconds_bucket/ {
         le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le)
         n = $2 - b[$1]; if (n > last) {printf "%s≤%s ms: %d", sep, (le == "+Inf" ? le : sprintf("%.2f", le * 1000)), n - last; sep = ", "}; last = n
       }
       END {print ""}' "$1" "$2"
}

run() { # one backend: $1 sqlite or postgres
  local backend=$1 database=()
  rm -rf "$work/data" "$work"/in* "$work"/out*
  if [ "$backend" = postgres ]; then
    start_postgres
    if [ -z "$conninfo" ]; then
      echo "postgres: skipped: PostgreSQL is not installed (scripts/install-tools.sh postgresql)"
      return
    fi
    database=(--database "$conninfo")
  fi
  port=$((20000 + RANDOM % 20000))
  addr="127.0.0.1:$port"
  RUST_LOG=warn,reversid=info,reversid::supervisor=warn,reversid::session=warn,reversid::supervisor::budget=debug \
    "$release/reversid" --listen "$addr" --metrics --data-dir "$work/data" "${database[@]}" \
    --grace 0 --max-pending-per-address 1000000 --max-sessions-per-address 1000000 \
    --abandon-strikes 1000000 --first-move-timeout 0 --move-timeout 0 --max-sessions 100000 \
    --max-pending 100000 --game-starts-per-address 1000000 --game-start-rate 1000000 \
    2>"$work/log-$backend" &
  server=$!
  sleep 1
  local t0
  t0=$(now)
  hold
  local running
  running=$(($(cat /proc/"$server"/task/*/children | wc -w) - 1))
  echo "$backend: $running sessions held after $(since "$t0") s"
  sleep 21 # the longest-turn gauge forgets the set-ups (it covers 10 to 20 s)
  scrape "$work/before"
  local stored0 t1 first= last= longest=0 longest_cpu=0 s g
  stored0=$(metric reversid_games_stored_total "$work/before")
  t1=$(now)
  local logged
  logged=$(wc -l <"$work/log-$backend")
  kill "${feeders[@]}" 2>/dev/null || true
  local perf=
  if [ -n "${PERF:-}" ]; then # the loop thread (the main one) profiled during the burst
    perf record -q -g -t "$server" -o "$PERF-$backend" 2>/dev/null &
    perf=$!
  fi
  while :; do
    scrape "$work/now"
    s=$(metric reversid_games_stored_total "$work/now")
    g=$(metric reversid_loop_turn_longest_seconds "$work/now")
    longest=$(awk -v a="$longest" -v b="$g" 'BEGIN {print (b > a ? b : a)}')
    g=$(metric reversid_loop_turn_cpu_longest_seconds "$work/now")
    longest_cpu=$(awk -v a="$longest_cpu" -v b="$g" 'BEGIN {print (b > a ? b : a)}')
    [ -n "$first" ] || [ "$s" -le "$stored0" ] || first=$(now)
    if [ $((s - stored0)) -ge "$games" ]; then last=$(now); break; fi
    if awk -v a="$t1" -v b="$(now)" 'BEGIN {exit !(b - a > 900)}'; then
      echo "$backend: only $((s - stored0)) of $games stored after 900 s"
      break
    fi
    sleep "$scrape_every"
  done
  [ -z "$perf" ] || { kill -INT "$perf"; wait "$perf" || true; }
  scrape "$work/after"
  g=$(metric reversid_loop_turn_longest_seconds "$work/after")
  longest=$(awk -v a="$longest" -v b="$g" 'BEGIN {print (b > a ? b : a)}')
  g=$(metric reversid_loop_turn_cpu_longest_seconds "$work/after")
  longest_cpu=$(awk -v a="$longest_cpu" -v b="$g" 'BEGIN {print (b > a ? b : a)}')
  if [ -n "$last" ]; then
    echo "$backend: $games games ended together: first stored $(since "$t1" "$first") s after the holders exit, the last $(since "$t1" "$last") s after: $(awk -v n="$games" -v a="$t1" -v b="$last" 'BEGIN {printf "%.0f", n / (b - a)}') games stored/s"
  fi
  echo "$backend: rows in games: $(rows "$backend"); journals left: $(find "$work/data/journals" -type f -name ".journal-*" | wc -l)"
  echo "$backend: the loop's longest turn during the burst: $(awk -v l="$longest" 'BEGIN {printf "%.2f", l * 1000}') ms (wall clock), $(awk -v l="$longest_cpu" 'BEGIN {printf "%.2f", l * 1000}') ms (the loop thread's CPU time)"
  echo "$backend: the burst's loop turns by bucket: $(turn_buckets "$work/before" "$work/after")"
  tail -n +"$((logged + 1))" "$work/log-$backend" | grep -o 'a long turn: .*' | sed 's/^a long turn: //' |
    sort -rn >"$work/long-$backend" || true
  echo "$backend: turns of 3 ms of CPU or more: $(wc -l <"$work/long-$backend"); the worst:"
  head -3 "$work/long-$backend" | sed "s/^/$backend:   /"
  kill -TERM "$server"
  wait "$server" || true
  server=
  echo "$backend: at exit: $(grep -o 'store: [0-9]* games archived.*' "$work/log-$backend" || echo '(no archive line)')"
  grep -E " (WARN|ERROR) " "$work/log-$backend" | head -5 || true
  if [ -n "$pg_dir" ]; then
    pg pg_ctl stop -w -m fast -D "$pg_dir/data" >/dev/null || true
    pg_dir=
  fi
}

echo "machine: $(nproc) cores; $(uptime)"
for backend in "${backends[@]}"; do
  case $backend in
    sqlite | postgres) run "$backend" ;;
    *) echo "bench-store-burst: unknown backend \"$backend\" (sqlite or postgres)" >&2; exit 2 ;;
  esac
done
wait
