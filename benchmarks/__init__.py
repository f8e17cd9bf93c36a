"""Measurement scripts, each writing its figures to ``benchmarks/results/NAME.md``; the library they
share (benchmark names, the stable sampler, results files) is :mod:`prover.benchmarks`."""
