"""Write report.md (pass@k, search statistics, plots, one search tree) for a run directory."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="a directory written by `dojo-prover eval`")


def run(args: argparse.Namespace) -> int:
    from prover.views.report import write_report
    from prover.views.safe_text import printable

    path = write_report(args.run_dir)
    # theorem names and proofs come from the run's files; read as bytes, so that a carriage return
    # in them is shown, not taken for a line break
    print(printable(path.read_bytes().decode("utf-8", "replace")))
    print(printable(f"written: {path}"))
    return 0
