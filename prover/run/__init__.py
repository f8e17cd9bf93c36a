"""Running a benchmark and reading the run: the multi-worker prover (:mod:`.distributed`), crash-safe
result files (:mod:`.evaluation`), pass@k and search statistics (:mod:`.analysis`), the HTML/Markdown
report (:mod:`.report`). Nothing here is imported by the search core; these modules sit on top of it."""
