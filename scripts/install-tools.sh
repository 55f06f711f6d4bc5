#!/usr/bin/env bash
# Installs what the project needs beyond the Rust toolchain, idempotently:
#   cargo-fuzz      for the fuzz targets (fuzz/README.md); needs the nightly toolchain
#   grhino          /usr/games/gtp-rhino, the outside engine `reversi match` plays against
#   tmux            the terminal the full-screen client's tests type into and read
#   tshark          tshark and dumpcap, for the Wireshark dissector's test (tests/tests/dissector.rs)
#   chromium        headless chromium and chromedriver, for the browser test (tests/tests/browser.rs)
# Usage: scripts/install-tools.sh [fuzz] [grhino] [tmux] [tshark] [chromium]   (no argument: all)
set -euo pipefail

want() { [ $# -eq 0 ] || [[ " $* " == *" $WHAT "* ]]; }

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
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq grhino
  fi
fi

WHAT=tmux
if want "$@"; then
  if ! command -v tmux >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tmux
  fi
fi

WHAT=tshark
if want "$@"; then
  if ! command -v tshark >/dev/null 2>&1 || ! command -v dumpcap >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    # Non-interactive: wireshark-common otherwise asks whether non-root users may capture.
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tshark
  fi
fi

WHAT=chromium
if want "$@"; then
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver
  fi
fi
