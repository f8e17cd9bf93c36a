#!/usr/bin/env bash
# Installs everything dojo-prover needs on a fresh Debian machine: Coq (+ CoqHammer), the pinned
# Python requirements and the package itself (editable). Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
# tmux and chromium: the tests drive `interact` in a real terminal and open tree pages in a browser
if ! command -v coqtop >/dev/null || ! dpkg -s libcoq-hammer >/dev/null 2>&1 || ! command -v tmux >/dev/null \
    || ! command -v chromium >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq coq libcoq-hammer tmux chromium >/dev/null
fi
python3 -m pip install -q --root-user-action=ignore -r requirements.txt
python3 -m pip install -q --root-user-action=ignore --no-deps -e .
