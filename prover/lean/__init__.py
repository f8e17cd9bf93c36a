"""The LeanDojo (Lean 4) backend: environment, goal parsing, tactic policy, rendering, tracing.

Submodules are imported on demand; none of them imports ``lean_dojo`` at module level, so that
``import prover`` stays light (``lean_dojo`` runs ``git`` at import and pulls in many packages).
"""
