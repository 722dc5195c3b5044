"""``python -m absint.torch diagnose SCRIPT.py``: which ``torch._check`` lines an export or
compile is missing, in the user's own variables, each verified by running it again.

:mod:`.record` records the questions of a trace (real-tensor propagation carries it on the
example's way, as ``torch.export.draft_export`` does), :mod:`.frames` finds the user's frame
and what its locals call each value, :mod:`.checks` works out the checks that decide one
question (:mod:`absint.missing`) and writes them as Python (:mod:`.pytext`, :mod:`.source`),
:mod:`.cover` chooses the fewest, :mod:`.runner` runs the script once with checks pasted,
:mod:`.pipeline` runs the rounds, :mod:`.report` writes the result, :mod:`.cli` and
:mod:`.child` are the command (a child process under a time limit). :func:`diagnose` is the
in-process entry. See ``docs/torch.md``.
"""

from __future__ import annotations


def diagnose(script: str, argv=(), emit=None):
    """The diagnosis of ``script`` run with ``argv``, in this process (:mod:`.pipeline`)."""
    from absint.torch.diagnose import pipeline

    return pipeline.diagnose(script, argv, emit)
