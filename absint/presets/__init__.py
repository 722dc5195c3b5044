"""Presets: facts assumed ahead of a program's asserts (``--preset nonneg|ge1|ge2|contiguous|duck``).

:mod:`absint.presets.facts` builds a preset's facts for a program from the corpus naming
of its symbols and checks them at the example point; :mod:`absint.presets.option` is the
command-line option every command shares; :mod:`absint.presets.explore` is what
``absint presets`` reports (open guards per preset, facts the program does not imply,
inputs the program accepts and the preset excludes).
"""
