#!/usr/bin/env bash
# Three reversid hosts behind HAProxy on loopback (deploy/haproxy.cfg): plays
# GAMES games (default 300) through HAProxy with reversi-load, then prints what
# each host saw: its games, that both players of every game were its own, that
# it logged the clients' real addresses, and that HAProxy's health checks left
# no log line. Then one host dies and more games are played on the other two.
# Cleans up after itself (processes and the temporary directory). Exits 1 if
# any of that is not so (.ci/run runs it when haproxy is installed).
#
# Usage: scripts/haproxy-demo.sh [GAMES]
# Needs haproxy (scripts/install-tools.sh haproxy); builds the debug binaries.
# Environment: PAIRS (bot pairs playing at once, default 30), THINK (ms a bot
# waits before each move, default 10, so that games overlap), REQUEUE (seconds
# a player waits alone before it reconnects, default 2), HOST_MAXCONN
# (connections per host before the next one fills, default 24: with 60 players
# at once all three hosts get some), REVERSI_FRONT (default 127.0.0.1:8765).
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${1:-300}
PAIRS=${PAIRS:-30}
THINK=${THINK:-10}
# A player left alone on a host (spec/DEPLOY.md, "at the boundary") quits and
# connects again after this many seconds.
REQUEUE=${REQUEUE:-2}
export HOST_MAXCONN=${HOST_MAXCONN:-24}
export REVERSI_FRONT=${REVERSI_FRONT:-127.0.0.1:8765}
HOSTS=(127.0.0.2 127.0.0.3 127.0.0.4)
PROXY=127.0.0.1 # where HAProxy connects to the hosts from

if ! command -v haproxy >/dev/null 2>&1; then
  echo "haproxy-demo: haproxy is not installed (scripts/install-tools.sh haproxy)" >&2
  exit 2
fi
cargo build -q -p reversi-server -p reversi-tests --bins
bin=${CARGO_TARGET_DIR:-target}/debug

work=$(mktemp -d)
declare -A host_pid
haproxy_pid=
cleanup() {
  # Each host runs in its own process group (setsid), its session children included.
  for h in "${!host_pid[@]}"; do kill -TERM -- "-${host_pid[$h]}" 2>/dev/null || true; done
  [ -z "$haproxy_pid" ] || kill "$haproxy_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The supervisor logs at info; its waiting module at debug, so the health checks it
# received can be counted (one debug line each) while checking they logged nothing else.
# The load's players all come from one /24 (127.1.0.x), which the open internet's
# game-start budget (spec/PROTOCOL.md §8.11) would rightly take for a flood: lifted here.
for h in "${HOSTS[@]}"; do
  RUST_LOG=info,reversid::supervisor::waiting=debug setsid "$bin/reversid" \
    --listen "$h:8765" --proxy-from "$PROXY/32" --data-dir "$work/$h-data" \
    --game-starts-per-address 1000000 --game-start-rate 1000000 2>"$work/$h.log" &
  host_pid[$h]=$!
done
haproxy -db -f deploy/haproxy.cfg >"$work/haproxy.log" 2>&1 &
haproxy_pid=$!

wait_for() { # file, text
  for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "haproxy-demo: $1 never showed '$2'" >&2
  cat "$1" >&2
  exit 1
}
for h in "${HOSTS[@]}"; do wait_for "$work/$h.log" "listening on"; done
front_host=${REVERSI_FRONT%:*}
front_port=${REVERSI_FRONT##*:}
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/$front_host/$front_port") 2>/dev/null && break
  sleep 0.1
done
# Let every host pass a health check or two before the players come.
sleep 3

games_on() { grep -c "session .* started: game" "$1" || true; }
failures=0
fail() {
  echo "haproxy-demo: FAILED: $*" >&2
  failures=$((failures + 1))
}

report() { # title, games played in this phase (each host's count starts at before[host])
  echo
  echo "== $1"
  local total=0
  for h in "${HOSTS[@]}"; do
    local log=$work/$h.log
    local games=$(($(games_on "$log") - ${before[$h]:-0}))
    total=$((total + games))
    printf '%-10s %4d games\n' "$h" "$games"
    games_of[$h]=$games
  done
  echo "total      $total games"
  [ "$total" -eq "$2" ] || fail "$total games on the hosts, $2 played"
}
declare -A games_of

echo "== ${GAMES} games by ${PAIRS} pairs through HAProxy at $REVERSI_FRONT (HOST_MAXCONN=$HOST_MAXCONN)"
declare -A before
"$bin/reversi-load" --addr "$REVERSI_FRONT" --concurrency "$PAIRS" --games "$GAMES" \
  --think "$THINK" --requeue-after "$REQUEUE" --latency-games 0 --echo-samples 100 | tee "$work/load.txt" ||
  fail "reversi-load reported errors"
report "games per host" "$GAMES"
for h in "${HOSTS[@]}"; do
  [ "${games_of[$h]}" -gt 0 ] || fail "no game on $h: the games were not spread"
done

echo
echo "== what the hosts logged"
for h in "${HOSTS[@]}"; do
  log=$work/$h.log
  sessions=$(grep "session .* started: game" "$log" || true)
  # "game N reversi A vs B": both players are this host's connections, by construction:
  # a host pairs only the connections it holds. A pair split over two hosts would leave
  # both players waiting, and reversi-load would report them as errors.
  pairs=$(printf '%s\n' "$sessions" | grep -c ' vs ' || true)
  clients=$(printf '%s\n' "$sessions" | grep -oE '[0-9.]+:[0-9]+ vs [0-9.]+:[0-9]+' |
    tr ' ' '\n' | grep -v vs | cut -d: -f1 | sort -u)
  proxied=$(printf '%s\n' "$clients" | grep -vc "^$PROXY\$" || true)
  checks=$(grep -c "the proxy's own connection (health check)" "$log" || true)
  # Every line at info or above that names the proxy's own address.
  noise=$(grep -v " DEBUG " "$log" | grep -c "$PROXY:" || true)
  refused=$(grep -c "refused" "$log" || true)
  printf '%-10s %4d games of 2 players; %3d client addresses (none %s); e.g. %s\n' \
    "$h" "$pairs" "$proxied" "$PROXY" "$(printf '%s\n' "$sessions" | head -1 | grep -oE 'game [0-9]+ reversi .*' || true)"
  printf '%-10s %4d health checks received, %d log lines about %s, %d refusals\n' \
    "" "$checks" "$noise" "$PROXY" "$refused"
  [ "$proxied" -gt 0 ] || fail "$h logged no client address"
  ! printf '%s\n' "$clients" | grep -qx "$PROXY" || fail "$h logged the proxy as a player"
  [ "$checks" -gt 0 ] || fail "$h received no health check"
  [ "$noise" -eq 0 ] || fail "$h logged $noise lines about the proxy's own address"
  [ "$refused" -eq 0 ] || fail "$h refused $refused connections"
done

# A host dies: its process group is killed. HAProxy notices within two checks
# (4 s); meanwhile a connection it still sends there fails and is redispatched.
# Two hosts hold two thirds of the players: that many play on.
dead=${HOSTS[0]}
survivors=$((PAIRS * 2 / 3))
echo
echo "== $dead dies (SIGKILL); $((GAMES / 3)) more games by $survivors pairs"
for h in "${HOSTS[@]}"; do before[$h]=$(games_on "$work/$h.log"); done
kill -KILL -- "-${host_pid[$dead]}"
wait "${host_pid[$dead]}" 2>/dev/null || true
unset "host_pid[$dead]"
"$bin/reversi-load" --addr "$REVERSI_FRONT" --concurrency "$survivors" --games "$((GAMES / 3))" \
  --think "$THINK" --requeue-after "$REQUEUE" --latency-games 0 --echo-samples 100 >"$work/load2.txt" ||
  fail "errors after $dead died"
grep -E "^(load|requeued|errors|  )" "$work/load2.txt"
report "games per host after $dead died" "$((GAMES / 3))"
[ "${games_of[$dead]}" -eq 0 ] || fail "games on $dead after it died"
echo
echo "haproxy said:"
sed 's/^/  /' "$work/haproxy.log"
[ "$failures" -eq 0 ] || exit 1
echo
echo "haproxy-demo: all as expected"
