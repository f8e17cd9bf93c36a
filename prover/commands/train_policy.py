"""Train the tactic policy and its value head on traced proofs (Lightning CLI).

Arguments after the subcommand go to Lightning's CLI, starting with its own subcommand, e.g.
`dojo-prover train-policy fit --config generator/configs/tiny.yaml --data.train_path TRACES`;
see `dojo-prover train-policy --help` and `python -m generator.train --help`.
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lightning_args", nargs=argparse.REMAINDER,
                        help="fit|validate ... --config YAML [--section.key value ...]")


def run(args: argparse.Namespace) -> int:
    from generator.train import main

    sys.argv[0] = "dojo-prover train-policy"  # the program name in Lightning's help
    main(args.lightning_args or ["--help"])
    return 0
