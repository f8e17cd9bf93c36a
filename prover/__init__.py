"""Environments (Coq, LeanDojo), provers, distributed evaluation and the ``dojo-prover`` CLI."""
