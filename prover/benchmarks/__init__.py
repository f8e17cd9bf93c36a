"""Benchmarks as a library: ``family:split`` names and their loaders, the one stable sampler, and the
results files that the measurement scripts in the top-level ``benchmarks/`` folder and some commands
write. The scripts sit above the whole package; what they share with the commands lives here."""
