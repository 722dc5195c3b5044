"""The reasoning layers behind one facade, :class:`absint.reasoning.reasoner.Reasoner`."""
