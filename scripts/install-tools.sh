#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain, idempotently:
#   cargo-fuzz      for the fuzz targets (fuzz/README.md); needs the nightly toolchain
#   grhino          /usr/games/gtp-rhino, the outside engine `reversi match` plays against
#   tmux            the terminal the full-screen client's tests type into and read
#   tshark          tshark and dumpcap, for the Wireshark dissector's test (tests/tests/dissector.rs)
#   haproxy         the load balancer of deploy/haproxy.cfg, for scripts/haproxy-demo.sh
#   chromium        headless chromium and chromedriver, for the browser test (tests/tests/browser.rs)
#   nc              netcat (OpenBSD's), to speak the text protocol by hand as README shows
#   postgresql      initdb and pg_ctl, for the store's tests against PostgreSQL (store/tests)
#   prometheus      the Prometheus server that scrapes reversid's /metrics in tests/tests/server_metrics.rs
# Usage: scripts/install-tools.sh [fuzz] [grhino] [tmux] [tshark] [haproxy] [chromium] [nc] [postgresql] [prometheus]   (no argument: all)
set -euo pipefail

TOOLS="fuzz grhino tmux tshark haproxy chromium nc postgresql prometheus"
for arg in "$@"; do
  case " $TOOLS " in
    *" $arg "*) ;;
    *)
      if [ "$arg" != -h ] && [ "$arg" != --help ]; then
        echo "install-tools: no tool \"$arg\"; tools: $TOOLS" >&2
        sed -n '2,/^# Usage/p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
      fi
      sed -n '2,/^# Usage/p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
  esac
done

ARGS=("$@")
want() { [ $# -eq 0 ] || [[ " $* " == *" $WHAT "* ]]; }

# Installs Debian packages, as root or through sudo.
apt_install() {
  local sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@"
}

WHAT=fuzz
if want "$@"; then
  if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "install-tools: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 1
  fi
  if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
  fi
fi

# Tool $1: the Debian packages $3... unless every command in $2 (space-separated) is there.
debian_tool() {
  local commands=$2 command
  WHAT=$1
  shift 2
  want "${ARGS[@]}" || return 0
  for command in $commands; do
    if ! command -v "$command" >/dev/null 2>&1; then
      apt_install "$@"
      return
    fi
  done
}

debian_tool grhino /usr/games/gtp-rhino grhino
debian_tool tmux tmux tmux
debian_tool tshark "tshark dumpcap" tshark
debian_tool haproxy haproxy haproxy
debian_tool chromium "chromium chromedriver" chromium chromium-driver
debian_tool nc nc netcat-openbsd
# initdb and pg_ctl live under /usr/lib/postgresql/<version>/bin, off PATH: look there.
debian_tool postgresql "$(ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | head -n 1 || echo /usr/lib/postgresql/bin/pg_ctl)" postgresql
debian_tool prometheus prometheus prometheus
