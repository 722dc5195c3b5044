"""``absint compare``: absint side by side with other reasoners (oracles), Z3 as the referee.

- ``oracle.py``: what an oracle is (the protocol, and the values it takes and gives);
  ``registry.py``: the one table of oracles (a new one is a module and a row there).
- ``absint_oracle.py``, ``z3_oracle.py``, ``shapeenv_oracle.py``: the oracles. Z3's protocol,
  cache and reference file are ``z3_solver.py``, ``z3_cache.py``, ``z3_reference.py``;
  ShapeEnv's reading of SMT-LIB is ``shapeenv_translate.py``.
- ``soundness.py``: absint's verdicts checked against Z3's answers.
- ``session.py``: each file through every oracle into a ``row.FileRow``; ``sampling.py``.
- ``summary.py``: the numbers; rendered by ``terminal.py``, ``outputs.py`` (summary.json,
  asserts.csv), ``cactus.py`` and ``markdown.py`` (docs/precision.md).
"""
