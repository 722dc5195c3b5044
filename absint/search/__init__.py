"""Searching the solutions of a shape program's facts, under the reasoner's checkpoints.

``sampling.py``: points that satisfy them (``absint sample``). For ``absint solve``:
``wants.py`` reads wants (infix or SMT-LIB) in a program's scope; ``labelling.py``
searches for a point; ``core.py`` finds the asserts that contradict the wants;
``solve.py`` puts them together into a :class:`Solution`.
"""
