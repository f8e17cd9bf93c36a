"""Prove a bundled example with best-first search (replaced by the Coq demo once it lands)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per theorem")


def run(args: argparse.Namespace) -> int:
    raise SystemExit("the demo needs the Coq backend (issue 3)")
