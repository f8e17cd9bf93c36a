"""Follow an evaluation run in the terminal: workers and their theorems, counts, pass rate, proofs.

    dojo-prover watch runs/coq-test            # follows until the run is complete (Ctrl-C to stop)
    dojo-prover watch runs/coq-test --once     # one frame, for a finished run or a script

It reads the run directory's files only and never writes to it, so it can watch a run that
another machine or process is writing.
"""

from __future__ import annotations

import argparse
import time

from search_tree.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="a run directory written by `dojo-prover eval --out`")
    parser.add_argument("--once", action="store_true", help="print one frame and exit")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between frames (default: 2)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.live import Live

    from prover.views.watch import render, snapshot

    if not args.interval > 0:
        raise UserError(f"--interval {args.interval}: must be positive")
    console = Console()
    snap = snapshot(args.run_dir)
    if args.once or snap.complete:
        console.print(render(snap))
        return 0
    try:
        with Live(render(snap), console=console, refresh_per_second=4, transient=False) as live:
            while not snap.complete:
                time.sleep(args.interval)
                snap = snapshot(args.run_dir)
                live.update(render(snap))
    except KeyboardInterrupt:
        pass
    return 0
