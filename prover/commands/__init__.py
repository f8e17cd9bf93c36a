"""Subcommands of ``dojo-prover``; each module has ``configure(parser)`` and ``run(args)``."""
