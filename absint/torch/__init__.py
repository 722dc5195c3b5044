"""absint inside PyTorch: the only package of absint that imports torch (always lazily)."""
