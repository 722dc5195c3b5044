"""Searching the solutions of a shape program's facts: points that satisfy them (sampling.py)."""
