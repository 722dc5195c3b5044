"""absint: sound, fast answers about the integer shape programs of deep-learning compilers."""

__version__ = "0.1.0"
