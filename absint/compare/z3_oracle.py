"""Z3 as an oracle of ``absint compare``, and the referee of absint's verdicts.

Z3's letters come from a run of the protocol (:mod:`absint.compare.z3_solver`), from the
disk cache (:mod:`absint.compare.z3_cache`) or from a reference file
(:mod:`absint.compare.z3_reference`); in every case the queries that check absint's
``T``/``F`` (:func:`~absint.compare.z3_solver.requests_for`) are answered by a real Z3 where
z3 is installed, and :mod:`absint.compare.soundness` turns them into findings.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from absint.compare import z3_solver
from absint.compare.oracle import Answers, Case, MissingExtra, Oracle, OracleOutcome
from absint.compare.soundness import check_verdicts
from absint.compare.z3_cache import Z3Cache, check_file, default_cache_dir
from absint.compare.z3_reference import from_reference, read_reference
from absint.compare.z3_solver import Z3FileResult, complete, requests_for


@attrs.frozen(slots=True)
class Z3Oracle(Oracle):
    name = "z3"
    title = "Z3"
    line_style = ("tab:red", "--")
    confusion_columns = "TF?u"
    referee = True

    timeout_ms: int = 1000
    budget_s: float = 300.0
    refute_all: bool = False
    reference: Mapping[str, tuple[str, float]] | None = None
    cache: Z3Cache = Z3Cache()
    live: bool = True  # z3 is installed: without it only a reference file gives letters, and no models

    def require(self) -> None:
        if self.reference is None:
            z3_solver.require_z3()

    def version(self) -> str:
        return z3_solver.z3_version()

    def warm_up(self, case: Case) -> None:
        if self.live:
            z3_solver.run_file(case.loaded.data)

    def run(self, case: Case) -> OracleOutcome:
        result = self._result(case)
        if result is None:
            return OracleOutcome(None, ("z3: not in the reference file",))
        if result.error:
            return OracleOutcome(None, (result.error,))
        answers = Answers(result.final_letters(), tuple(result.seconds), result.total_seconds,
                          {"source": result.source, "verify_seconds": result.extra_seconds})
        if len(result.letters) != len(case.absint.letters) and case.loaded.ok:
            return OracleOutcome(answers)  # read differently: a problem of the file, nothing to check
        unsound, gave_up = check_verdicts(case, result, with_models=self.live)
        return OracleOutcome(answers, unsound=tuple(unsound), gave_up=tuple(gave_up))

    def _result(self, case: Case) -> Z3FileResult | None:
        """From the reference file (its requests completed by a real Z3) or from Z3."""
        data, requests = case.loaded.data, requests_for(case.absint.letters)
        if self.reference is None:
            return check_file(data, timeout_ms=self.timeout_ms, budget_s=self.budget_s,
                              refute_all=self.refute_all, requests=requests, cache=self.cache)
        line = self.reference.get(case.loaded.name)
        if line is None:
            return None
        result = from_reference(*line)
        if self.live and case.loaded.ok and len(result.letters) == len(case.absint.letters):
            complete(result, data, requests, timeout_ms=self.timeout_ms)
        return result

    def totals(self, answers: list[Answers]) -> dict[str, Any]:
        """The CPU spent checking absint, kept apart from Z3's own."""
        return {"verify_seconds": round(sum(a.details.get("verify_seconds", 0.0) for a in answers), 6)}

    def file_fields(self, answers: Answers) -> dict[str, Any]:
        return {"source": answers.details["source"], "verify_seconds": round(answers.details["verify_seconds"], 6)}


def _installed() -> bool:
    try:
        z3_solver.require_z3()
    except MissingExtra:
        return False
    return True


def from_args(args) -> Z3Oracle:
    live = _installed()
    reference = read_reference(args.z3_reference) if args.z3_reference else None
    directory = None if args.no_cache or not live else (args.cache_dir or default_cache_dir())
    return Z3Oracle(args.timeout_ms, args.budget, args.z3_refute_all, reference, Z3Cache(directory), live)
