"""Abstract domains, one module each, all against the protocols in :mod:`domains.lattice`.

:data:`VALUE_DOMAINS` registers the value domains by name: what a reasoner can be built on
(``Reasoner(domain=VALUE_DOMAINS[name])``) and what the shared law tests
(``tests/domain_laws.py: LatticeLaws``) must cover, each for Int and Real. A new domain is
one module with its adapter object, a row here, and a test class of those laws.
"""

from __future__ import annotations

from domains.congruence import CONGRUENCE
from domains.interval import INTERVAL
from domains.interval_congruence import IC

VALUE_DOMAINS = {"interval": INTERVAL, "congruence": CONGRUENCE, "interval-congruence": IC}

__all__ = ["VALUE_DOMAINS"]
