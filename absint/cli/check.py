"""``absint check``: a file parses and every assert holds at its example point.

Each file's report is :func:`absint.reports.check.check_file`; this module parses the
options and prints the report's line (or its JSON).
"""

from __future__ import annotations

from absint.presets import option as preset_option
from absint.reports.check import check_file


EPILOG = """\
limits: each file is checked in its own process: past --timeout it is killed
  and 'FILE: timeout after S s' is printed on stderr (past --max-memory,
  'FILE: memory limit exceeded (N MB)'); the other files are still checked.
exit status: 0 if every file was read, parsed and every assert holds (or
  cannot be evaluated) at its example point; 1 otherwise (also when a file
  was over a limit); 2 on a usage error, or when a --preset fact is false at
  a file's example point (the preset is refused; the line names the fact).
"""


def add_arguments(parser) -> None:
    from absint.batch.budgets import add_budget_arguments
    from absint.cli.runner import add_paths

    add_paths(parser, EPILOG)
    add_budget_arguments(parser)
    preset_option.add_argument(parser)
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per file on stdout (file, ok, asserts, holding, failing, "
                             "not_evaluable, unbacked, error, preset_facts, refused), no summary line")


def run(args) -> int:
    from absint.batch.budgets import max_size
    from absint.cli.runner import OK, PROBLEM, USAGE, FileOutcome, each_file

    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        report = check_file(path, max_size(args), presets)
        status = USAGE if report.refused is not None else OK if report.ok else PROBLEM
        return FileOutcome(report.to_json(), (report.summary(),), status=status)

    return each_file(args, "check", job, summary=lambda n, tally: f"{n} file(s), {tally['problems']} with a problem")
