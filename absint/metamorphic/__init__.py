"""Metamorphic checks: a program rewritten without changing its meaning must get the same
verdict letters (issue 37). ``sexpr`` reads and prints the text, ``scope`` knows what its
names stand for, ``rewrites`` holds the rewrites (``REWRITES``), ``sympy_trip`` the sympy round
trip, ``check`` compares the letters; ``python -m benchmarks.metamorphic`` runs them on files."""
