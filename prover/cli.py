"""The ``dojo-prover`` command line: one subcommand per module in :mod:`prover.commands`.

Each command module defines ``configure(parser)`` and ``run(args) -> int`` and keeps heavy imports
(torch, ray, faiss) inside ``run``, so building the parser stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand name -> module defining it
COMMANDS: dict[str, str] = {
    "demo": "prover.commands.demo",
    "eval": "prover.commands.eval",
    "report": "prover.commands.report",
    "ablate": "prover.commands.ablate",
    "trace-lean": "prover.commands.trace_lean",
    "train-policy": "prover.commands.train_policy",
    "trace": "prover.commands.trace",
    "prove": "prover.commands.prove",
    "retrieval-eval": "prover.commands.retrieval_eval",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dojo-prover", description="Neural theorem proving at the tactic level.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        doc = (module.__doc__ or "").strip()
        sp = sub.add_parser(name, help=doc.splitlines()[0] if doc else None, description=doc)
        module.configure(sp)
        sp.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
