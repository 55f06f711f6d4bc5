#!/usr/bin/env bash
# Many live games on one server: a warm-up round of set-ups (not compared: a server's
# first minutes cost more, as its heap, the page cache and the journal directory fill),
# set-ups with none held, then HOLD idle games held by
# hold-worker processes of 4,000 games each (each from loopback source addresses of its
# own), then the same set-ups again; then every held game ends, and once the store has
# archived every journal the set-ups run a third time with none held (the machine's
# noise shows between the first and the third); then the server is stopped. The server
# keeps its store in a data directory of the run's own, removed at the end.
# Build first: cargo build --release -p reversi-server -p reversi-tests (BIN_DIR=DIR: binaries from DIR)
# Usage: scripts/bench-many-games.sh [HOLD] [GAMES]   (defaults 25000, 4000)
# Prints: set-ups per second and the server's own CPU time a set-up (supervisor, fork
# server and every session: utime+stime of each from /proc/PID/stat, the reaped sessions'
# through the supervisor's cutime+cstime) and its page faults (minor and major, counted
# the same way) with none held before, with HOLD held and with
# none held after, the held one's ratio to each; beside each, the CPU the rest of the
# machine used meanwhile (/proc/stat's busy time less the server's: the load processes,
# other work, kernel threads, DAMON's kdamond if the host runs it) and the time the
# hypervisor stole, a set-up, and the pages the kernel wrote back to files meanwhile (its
# flusher: journals of games set up earlier among them) and the dirty KiB left, and the
# spare journals ready before and made in advance meanwhile (the server's metrics: each
# round starts once the server has made no spare for a second);
# with HOLD held, the supervisor's descriptors and RSS, the Private_Dirty and the page
# tables of every session (/proc/PID/smaps_rollup and VmPTE in /proc/PID/status: min,
# median, max and how many of each size; and the
# mappings that hold it and the page tables of the last three, from /proc/PID/smaps and
# /proc/PID/status) and what MemAvailable
# fell by, a game; after the held games end, how long until every one
# was reaped and whether any zombie is left, and until every journal was archived; then,
# as a control, the set-ups once more beside HOLD sleeping processes of another program
# (reversi-load --hold-processes) that each map as many KiB shared, anonymous and of
# files (reversid's), as a held session, and
# that round's ratio to the two with none held; and
# how long the shutdown took. The script
# changes nothing on the host: every limit it meets is the machine's.
# PERF_DATA=PREFIX: also profile the supervisor (perf record, call graphs) during the set-ups
# with none held and with HOLD held, into PREFIX.none and PREFIX.held (see perf report -i);
# with PERF_ALL=1 too, the whole machine (sessions, fork server and kernel threads).
set -euo pipefail
case "${1:-}" in
  -h | --help) sed -n '2,/^# changes/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
hold=${1:-25000} games=${2:-4000}
for n in "$hold" "$games"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "bench-many-games: \"$n\" is not a count" >&2; exit 2; }
done
release="${BIN_DIR:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}/release}"
for bin in reversid reversi-load; do
  [ -x "$release/$bin" ] || {
    echo "bench-many-games: $release/$bin is missing: cargo build --release -p reversi-server -p reversi-tests" >&2
    exit 1
  }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tick_hz=$(getconf CLK_TCK)
port=$((20000 + RANDOM % 20000))
addr="127.0.0.1:$port"

stat_ticks() { # utime+stime+cutime+cstime of PID $1 (0 once it is gone)
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  awk '{print $12 + $13 + $14 + $15}' <<<"${stat##*) }"
}
children() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -c . || true; }
stats_of_children() { # the /proc/PID/stat lines of $1's children (names without spaces)
  cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . | sed 's|.*|/proc/&/stat|' |
    xargs -r cat 2>/dev/null || true
}
zombies() { stats_of_children "$1" | awk '$3 == "Z" {n++} END {print n + 0}'; }
server_counts() { # the supervisor's and its children's "CPU_TICKS MINOR_FAULTS MAJOR_FAULTS", one
  # read of each /proc/PID/stat, children first (none lost; reaped ones through the supervisor's
  # cutime+cstime, cminflt and cmajflt)
  local stat children
  children=$(stats_of_children "$1" | awk '{t += $14 + $15 + $16 + $17; mi += $10 + $11; ma += $12 + $13}
    END {print t + 0, mi + 0, ma + 0}')
  stat=$(cat "/proc/$1/stat")
  awk -v c="$children" '{split(c, k, " "); print $12 + $13 + $14 + $15 + k[1], $8 + $9 + k[2], $10 + $11 + k[3]}' <<<"${stat##*) }"
}
own_ticks() { # the supervisor's own utime+stime, its children not counted
  local stat
  stat=$(cat "/proc/$1/stat")
  awk '{print $12 + $13}' <<<"${stat##*) }"
}
machine_ticks() { # busy ticks of every CPU (user, nice, system, irq, softirq) and steal, from /proc/stat
  awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $9}' /proc/stat
}
written_pages() { # pages the kernel has written back to files so far (its flusher's work)
  awk '/^nr_written / {print $2}' /proc/vmstat
}
# The kernel's DAMON threads, if the host runs any: found once, as pgrep walks every
# process (thousands of samples in a round with 25,000 held).
kdamonds=$(pgrep '^kdamond' || true)
kdamond_ticks() { # the CPU ticks of the kernel's DAMON threads
  local t=0 pid
  for pid in $kdamonds; do t=$((t + $(stat_ticks "$pid"))); done
  echo "$t"
}
cpu_of() { grep -o '[0-9.]* ms' <<<"$1" | head -1 | cut -d' ' -f1; } # a round's CPU a set-up, from its line
metric() { # the value of the server's metric $1 (reversid_ left out), from its /metrics
  curl -s "http://$addr/metrics" | awk -v m="reversid_$1" '$1 == m {v = $2} END {print v}' # every line read: no SIGPIPE for curl
}
spares_at_rest() { # waits (120 s at most) until the server makes no more spare journals in advance for a second
  local made last=-1 waited=0
  while made=$(metric journal_spares_made_total) && [ "$made" != "$last" ] && [ $waited -lt 120 ]; do
    last=$made waited=$((waited + 1))
    sleep 1
  done
}
setups() { # GAMES set-ups; prints "RATE set-ups/s, MS ms server CPU a set-up (SUP ms the supervisor's own, its page faults)"
  # and what the rest of the machine used meanwhile, a set-up: every other process and
  # kernel thread (of which DAMON's), and the time the hypervisor took from this machine
  local spares made_before made_after before after out rate own_before own_after perf= machine_before minor_before written_before written_after major_before minor_after major_after machine_after damon_before damon_after
  if [ -n "${PERF_DATA:-}" ]; then # $1: the profile's suffix
    local target=(-p "$server")
    if [ -n "${PERF_ALL:-}" ]; then target=(-a); fi
    perf record -q -F 2000 -g "${target[@]}" -o "$PERF_DATA.$1" 2>/dev/null &
    perf=$!
    sleep 1
  fi
  spares_at_rest # a round starts with the pool of spares at rest: none made meanwhile for earlier rounds
  spares=$(metric journal_spares) made_before=$(metric journal_spares_made_total)
  own_before=$(own_ticks "$server")
  read -r before minor_before major_before <<<"$(server_counts "$server")"
  machine_before=$(machine_ticks) damon_before=$(kdamond_ticks) written_before=$(written_pages)
  out=$("$release/reversi-load" --addr "$addr" --server-pid "$server" --setup-only \
    --concurrency 32 --games "$games" --latency-games 0 --echo-samples 0 2>&1)
  read -r after minor_after major_after <<<"$(server_counts "$server")"
  own_after=$(own_ticks "$server")
  machine_after=$(machine_ticks) damon_after=$(kdamond_ticks) written_after=$(written_pages)
  if [ -n "$perf" ]; then kill -INT "$perf"; wait "$perf" || true; fi
  made_after=$(metric journal_spares_made_total)
  rate=$(grep -o "[0-9]* session set-ups/s" <<<"$out" || echo "failed")
  read -r busy_before steal_before <<<"$machine_before"
  read -r busy_after steal_after <<<"$machine_after"
  awk -v t=$((after - before)) -v s=$((own_after - own_before)) -v hz="$tick_hz" -v g="$games" \
    -v r="$rate" -v m=$((busy_after - busy_before)) -v d=$((damon_after - damon_before)) \
    -v st=$((steal_after - steal_before)) -v mi=$((minor_after - minor_before)) -v ma=$((major_after - major_before)) \
    -v w=$((written_after - written_before)) -v dirty="$(awk '/^Dirty:/ {print $2}' /proc/meminfo)" \
    -v sp="${spares:-?}" -v mk=$((${made_after:-0} - ${made_before:-0})) \
    'BEGIN {printf "%s, %.3f ms server CPU a set-up (%.3f ms the supervisor'"'"'s own, %.1f page faults of which %.2f major); the rest of the machine %.3f ms (DAMON %.3f), stolen %.3f; %.1f pages written back a set-up, %d dirty KiB left; %s spare journals ready before, %d made meanwhile\n",
      r, t * 1000 / hz / g, s * 1000 / hz / g, mi / g, ma / g, (m - t) * 1000 / hz / g, d * 1000 / hz / g, st * 1000 / hz / g, w / g, dirty, sp, mk}'
}

RUST_LOG=warn,reversid=info,reversid::supervisor=warn,reversid::session=warn "$release/reversid" --listen "$addr" --data-dir "$work/data" --metrics --max-pending-per-address 1000000 \
  --max-sessions-per-address 1000000 --abandon-strikes 1000000 --first-move-timeout 0 \
  --move-timeout 0 --max-sessions 100000 --max-pending 100000 \
  --game-starts-per-address 1000000 --game-start-rate 1000000 2>"$work/log" &
server=$!
sleep 1
echo "$(grep -o 'open files limit: [0-9]*' "$work/log" || echo 'open files limit: ?') (soft = hard: $(awk '/Max open files/ {print $5}' /proc/$server/limits))"
echo "warm-up        : $(setups warmup)"
alone=$(setups none)
echo "none held      : $alone"

avail() { awk '/MemAvailable/ {print $2}' /proc/meminfo; }
avail_before=$(avail)
t0=$(date +%s.%N)
feeders=()
left=$hold i=0
while [ "$left" -gt 0 ]; do
  k=$((left < 4000 ? left : 4000))
  left=$((left - k)) i=$((i + 1))
  mkfifo "$work/in$i"
  "$release/reversi-load" --addr "$addr" --hold-worker "$k" <"$work/in$i" >"$work/out$i" 2>&1 &
  sleep 100000 >"$work/in$i" &
  feeders+=($!)
done
for j in $(seq "$i"); do
  until grep -q held "$work/out$j" 2>/dev/null; do
    if grep -qi "panicked\|error" "$work/out$j" 2>/dev/null; then
      echo "hold worker $j failed: $(head -3 "$work/out$j")"; break
    fi
    sleep 0.5
  done
done
running=$(( $(children "$server") - 1 ))
echo "held           : $running sessions running (of $hold asked) after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}') s, by $i hold processes"
echo "machine memory : MemAvailable $(( (avail_before - $(avail)) / 1024 )) MiB less than before: $(( (avail_before - $(avail)) / (running > 0 ? running : 1) )) KiB a game, kernel and load processes included (other work on the machine too)"
echo "supervisor     : $(ls /proc/$server/fd | wc -l) descriptors, RSS $(awk '/VmRSS/ {print $2}' /proc/$server/status) KiB"
sessions=$(cat /proc/"$server"/task/*/children | tr ' ' '\n' | grep . | tail -n +2)
for pid in $sessions; do # Private_Dirty and page tables of every session (KiB; the fork server, the oldest child, left out)
  awk '/^Private_Dirty/ {print $2}' /proc/"$pid"/smaps_rollup 2>/dev/null >>"$work/dirty" || true
  awk '/^VmPTE/ {print $2}' /proc/"$pid"/status 2>/dev/null >>"$work/pte" || true
done
spread() { # min, median, max and how many of each value, of the numbers in file $1
  sort -n "$1" | awk '{v[NR] = $1; n[$1]++} END {if (NR == 0) {print "none read"; exit}
  printf "%d sessions: min %d, median %d, max %d KiB (", NR, v[1], v[int((NR + 1) / 2)], v[NR]
  for (k in n) printf "%s%d KiB: %d", (sep++ ? ", " : ""), k, n[k]; print ")"}'
}
echo "sessions' Private_Dirty: $(spread "$work/dirty")"
echo "sessions' page tables  : $(spread "$work/pte")"
shared_anon=0 shared_file=0
for pid in $(tail -n 3 <<<"$sessions"); do
  read -r shared_anon shared_file < <(awk '/^[0-9a-f]+-/ {file = ($6 ~ /^\//)} /^Shared_(Clean|Dirty)/ {if (file) f += $2; else a += $2}
    END {print a + 0, f + 0}' /proc/$pid/smaps 2>/dev/null || echo 0 0)
  echo "session $pid  : Private_Dirty $(awk '/Private_Dirty/ {print $2}' /proc/$pid/smaps_rollup) KiB, Private_Clean $(awk '/Private_Clean/ {print $2}' /proc/$pid/smaps_rollup) KiB, Pss $(awk '/^Pss:/ {print $2}' /proc/$pid/smaps_rollup) KiB, shared with other processes $(awk '/^Shared_(Clean|Dirty)/ {s += $2} END {print s}' /proc/$pid/smaps_rollup) KiB, page tables $(awk '/^VmPTE/ {print $2}' /proc/$pid/status) KiB"
  echo "  its dirty mappings (Private_Dirty KiB, mapping): $(awk '/^[0-9a-f]+-/ {name = ($6 == "" ? "anonymous" : $6); sub(/.*\//, "", name); m = $2 " " name}
    /^Private_Dirty/ && $2 > 0 {printf "%s%s %s", sep, $2, m; sep = ", "}' /proc/$pid/smaps)"
done
held=$(setups held)
echo "$running held   : $held"

t1=$(date +%s.%N)
kill "${feeders[@]}" 2>/dev/null || true
until [ "$(children "$server")" -le 1 ]; do
  sleep 0.5
  if awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN {exit !(b - a > 600)}'; then break; fi
done
echo "held games ended: $(children "$server") children left (the fork server among them) after $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s, $(zombies "$server") zombies"
journals() { find "$work/data/journals" -type f -name ".journal-*" 2>/dev/null | wc -l; }
until [ "$(journals)" -eq 0 ]; do
  sleep 1
  if awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN {exit !(b - a > 900)}'; then break; fi
done
echo "archived       : $(journals) journals left after $(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s; load $(cut -d' ' -f1-3 /proc/loadavg)"
again=$(setups again)
echo "none held again: $again"
ratios() { # "LABEL: X the CPU a set-up of none held before, Y of none held after", for the round printed as $2
  awk -v a="$(cpu_of "$alone")" -v r="$(cpu_of "$2")" -v g="$(cpu_of "$again")" -v l="$1" \
    'BEGIN {if (a > 0 && g > 0) printf "%s: %.2fx the CPU a set-up of none held before, %.2fx of none held after\n", l, r / a, r / g}'
}
ratios "ratio          " "$held"
# The control: as many processes, each mapping as many shared pages as a held session,
# of another program, with no socket and no game. What the set-ups cost beside them is
# what the machine does with that many processes, not what the server does with that
# many games.
mkfifo "$work/control"
"$release/reversi-load" --hold-processes "$hold" --shared-kib "$shared_anon" --shared-file "$release/reversid" \
  --file-kib "$shared_file" <"$work/control" >"$work/control.out" 2>&1 &
control=$!
exec 9>"$work/control"
until grep -q held "$work/control.out" 2>/dev/null || ! kill -0 "$control" 2>/dev/null; do sleep 0.5; done
echo "control        : $(head -1 "$work/control.out") processes of reversi-load --hold-processes, each mapping $shared_anon KiB of shared memory and $shared_file KiB of reversid's file (as a held session), with no socket"
beside=$(setups control)
echo "none held, $hold others: $beside"
exec 9>&-
wait "$control" || true
ratios "control ratio  " "$beside"
t2=$(date +%s.%N)
kill -TERM "$server"
wait "$server" || true
echo "shutdown       : $(awk -v a="$t2" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"
echo "log            : $(grep -c . "$work/log") lines, $(grep -c 'cannot watch' "$work/log" || true) \"cannot watch\"; warnings and errors:"
grep -E " (WARN|ERROR) " "$work/log" | head -5 || true
wait
