"""PyTorch's sympy vocabulary (``FloorDiv``, ``PythonMod``, ``CeilToInt``, ...), for writing
answers back in the classes the compiler itself builds expressions with."""

from __future__ import annotations


def sympy_functions():
    """``torch.utils._sympy.functions``; ImportError when torch is not installed."""
    from torch.utils._sympy import functions

    return functions
