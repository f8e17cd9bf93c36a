"""Views of searches and runs for people: a run's report with its tree pages, the live run view,
interactive proving. Views read runs (:mod:`prover.run.analysis`); runs never import views."""
