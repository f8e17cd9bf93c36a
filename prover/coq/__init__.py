"""The Coq backend: sentence splitting, the stdlib index and split, tracing, and the coqtop environment."""
