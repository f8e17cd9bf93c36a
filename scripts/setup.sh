#!/usr/bin/env bash
# Installs everything dojo-prover needs on a fresh Debian machine: Coq (+ CoqHammer), the pinned
# Python requirements and the package itself (editable). Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian packages: Coq; CoqHammer with the ATPs Debian provides (E and CVC4; Debian's z3 lacks the
# z3_tptp front-end hammer calls); tmux and chromium, with which the tests drive `interact` in a real
# terminal and open tree pages in a browser.
PACKAGES="coq libcoq-hammer eprover cvc4 z3 tmux chromium"
if ! dpkg -s $PACKAGES >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PACKAGES >/dev/null
fi
python3 -m pip install -q --root-user-action=ignore -r requirements.txt
python3 -m pip install -q --root-user-action=ignore --no-deps -e .
