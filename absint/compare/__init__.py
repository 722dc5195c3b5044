"""Comparison with other reasoners (Z3, PyTorch's ShapeEnv) through one oracle registry."""
