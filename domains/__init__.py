"""Abstract domains, one module each, all against the protocols in :mod:`domains.lattice`."""
