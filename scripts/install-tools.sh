#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain, idempotently:
#   cargo-fuzz      for the fuzz targets (fuzz/README.md); needs the nightly toolchain
#   grhino          /usr/games/gtp-rhino, the outside engine `reversi match` plays against
#   tmux            the terminal the full-screen client's tests type into and read
#   tshark          tshark and dumpcap, for the Wireshark dissector's test (tests/tests/dissector.rs)
#   haproxy         the load balancer of deploy/haproxy.cfg, for scripts/haproxy-demo.sh
#   chromium        headless chromium and chromedriver, for the browser test (tests/tests/browser.rs)
# Usage: scripts/install-tools.sh [fuzz] [grhino] [tmux] [tshark] [haproxy] [chromium]   (no argument: all)
set -euo pipefail

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

WHAT=grhino
if want "$@"; then
  if [ ! -x /usr/games/gtp-rhino ]; then
    apt_install grhino
  fi
fi

WHAT=tmux
if want "$@"; then
  if ! command -v tmux >/dev/null 2>&1; then
    apt_install tmux
  fi
fi

WHAT=tshark
if want "$@"; then
  if ! command -v tshark >/dev/null 2>&1 || ! command -v dumpcap >/dev/null 2>&1; then
    apt_install tshark
  fi
fi

WHAT=haproxy
if want "$@"; then
  if ! command -v haproxy >/dev/null 2>&1; then
    apt_install haproxy
  fi
fi

WHAT=chromium
if want "$@"; then
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    apt_install chromium chromium-driver
  fi
fi
