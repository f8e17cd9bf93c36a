"""Environments (Coq, LeanDojo), provers, distributed evaluation and the ``dojo-prover`` CLI.

Importing the package registers every backend (:mod:`prover.backends`), so that the generator,
template-set and environment tables know their names in every process that builds a run.
"""

import prover.backends  # noqa: F401  (registers the backends' names)
