"""``absint solve``: inputs that give wanted outputs, or a proof that none do.

``wants.py`` reads wants (infix or SMT-LIB) in a program's scope; ``labelling.py``
searches for a point under the reasoner's checkpoints; ``core.py`` finds the asserts that
contradict the wants; ``solve.py`` puts them together into a :class:`Solution`.
"""
