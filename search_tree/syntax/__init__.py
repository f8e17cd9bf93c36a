"""Backend syntax, one module per language: how Coq and Lean print goals, write notation and give up.

Pure functions on text, below every consumer (prover backends, generators, retrievers), so that a
backend's syntax is read the same way everywhere and adding a backend means one more module here:

* :mod:`search_tree.syntax.coq`: coqtop's goal blocks, Coq notation and keywords, give-up tactics;
* :mod:`search_tree.syntax.lean`: Lean 4 goal lists (as LeanDojo records them), notation, give-ups;
* :mod:`search_tree.syntax.printed`: goals of a printed state of either language, for traced data
  and retrieval queries, where the backend's own parse is not at hand.

This package imports nothing outside :mod:`search_tree`.
"""
