"""Dataset loaders, splits, ablation runners and performance benchmarks."""
