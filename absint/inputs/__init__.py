"""``absint inputs``: the set of inputs that pass every assert of a program, described.

``description`` builds the description (specialised constants, equalities, per-symbol
ranges with residue sets, the remaining relations) from the asserts themselves, so that
it is equivalent to their conjunction by construction; ``residues`` states what the
asserts say about a symbol modulo a small constant; ``within`` finds the asserts that can
fail inside declared ranges, each with a counterexample checked by the evaluator;
``export`` writes the description as ``torch.export`` takes it.
"""
