"""Readers: SMT-LIB 2 text and sympy expressions into terms and programs."""
