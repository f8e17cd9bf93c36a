"""Running a benchmark and reading the run: the multi-worker prover (:mod:`.distributed`), crash-safe
result files (:mod:`.evaluation`), pass@k and search statistics (:mod:`.analysis`). The report of a
run is a view (:mod:`prover.views.report`): nothing here imports the views, which read runs."""
