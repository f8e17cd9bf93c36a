#!/usr/bin/env bash
# Installs everything dojo-prover needs on a fresh Debian machine: Coq (+ CoqHammer), the pinned
# Python requirements and the package itself (editable). Safe to run again: it skips what is there.
# --with-libraries also installs the Debian Coq libraries that the README evaluates (AAC_tactics, as
# `coq-lib:AAC_tactics`: sources and .vo under $(coqc -where)/user-contrib/AAC_tactics) and that
# the integration tests open, trace and resolve (the README's test command passes it).
set -euo pipefail
cd "$(dirname "$0")/.."
LIBRARIES=""
for arg in "$@"; do
  case "$arg" in
    --with-libraries) LIBRARIES="libcoq-aac-tactics libcoq-equations libcoq-deriving libcoq-elpi libcoq-ext-lib
                                 libcoq-mathcomp-ssreflect libcoq-mathcomp-analysis libcoq-mathcomp-bigenough" ;;
    *) echo "setup.sh: unknown argument $arg (known: --with-libraries)" >&2; exit 2 ;;
  esac
done
# Debian packages: Coq; CoqHammer with the ATPs Debian provides (E and CVC4; Debian's z3 lacks the
# z3_tptp front-end hammer calls); coq-dpdgraph, whose dependency graphs the leak check reads;
# tmux and chromium, with which the tests drive `interact` in a real terminal and open tree pages
# in a browser.
PACKAGES="coq libcoq-hammer libcoq-dpdgraph eprover cvc4 z3 tmux chromium $LIBRARIES"
if ! dpkg -s $PACKAGES >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PACKAGES >/dev/null
fi
python3 -m pip install -q --root-user-action=ignore -r requirements.txt
python3 -m pip install -q --root-user-action=ignore --no-deps -e .
