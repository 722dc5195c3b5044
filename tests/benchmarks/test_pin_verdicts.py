"""The pinned corpus verdicts (benchmarks/pin_verdicts.py): the encoding, the comparison the
corpus test makes, and the pin file in the repository (well formed, canonical)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import pin_verdicts as P
from repo_paths import DATA


@given(st.text(alphabet="TF?", max_size=200))
def test_run_length_encoding_round_trips(letters):
    assert P.decode(P.encode(letters)) == letters


def test_runs_of_one_letter_are_the_letter_alone_and_no_asserts_is_a_dash():
    assert P.encode("??????T?????") == "6?T5?"
    assert P.encode("") == "-" and P.decode("-") == ""


@pytest.mark.parametrize("text", ["", "6", "0T", "T5", "3X", "12?T-", "06T"])
def test_malformed_letters_are_refused(text):
    with pytest.raises(ValueError):
        P.decode(text)


def record(name: str, verdicts: str, error: str | None = None) -> dict:
    return {"file": f"/corpus/{name}", "verdicts": verdicts, "error": error}


PINNED = {"a.smt2": "TT?F?", "b.smt2": "?T"}


def test_a_proof_turned_open_or_flipped_fails_naming_the_file_and_the_assert():
    """The planted losses: a.smt2's assert 1 (T) now open, assert 3 (F) now T."""
    result = P.compare(PINNED, P.current_verdicts([record("a.smt2", "T??T?"), record("b.smt2", "?T")]))
    assert result.failed
    assert [str(c) for c in result.lost] == ["a.smt2 assert 1: T -> ?", "a.smt2 assert 3: F -> T"]
    assert "LOST: a.smt2 assert 1: T -> ?" in P.report(result)


def test_a_letter_gained_is_reported_and_does_not_fail():
    result = P.compare(PINNED, P.current_verdicts([record("a.smt2", "TTTF?"), record("b.smt2", "TT"),
                                                   record("c.smt2", "?")]))
    assert not result.failed
    assert [str(c) for c in result.gained] == ["a.smt2 assert 2: ? -> T", "b.smt2 assert 0: ? -> T"]
    assert result.new_files == ("c.smt2",)


def test_a_pinned_file_missing_failed_or_resized_is_a_problem():
    result = P.compare(PINNED, P.current_verdicts([record("a.smt2", "", "timeout: exceeded 1 s")]))
    assert result.failed and result.lost == ()
    assert result.problems == ("a.smt2: pinned, but its record is an error", "b.smt2: pinned, but not analysed")
    resized = P.compare(PINNED, P.current_verdicts([record("a.smt2", "TT?F"), record("b.smt2", "?T")]))
    assert resized.problems == ("a.smt2: 4 asserts, the pin has 5",)


def test_write_then_compare_from_records(tmp_path, capsys):
    records = tmp_path / "r.jsonl"
    records.write_text('{"file": "x/a.smt2", "verdicts": "TT?", "error": null}\n'
                       '{"file": "x/b.smt2", "verdicts": "", "error": null}\n')
    pin = tmp_path / "pin.txt"
    assert P.main(["--jsonl", str(records), "--pin", str(pin), "--write"]) == 0
    assert P.read_pin(pin) == {"a.smt2": "TT?", "b.smt2": ""}
    assert P.main(["--jsonl", str(records), "--pin", str(pin)]) == 0
    records.write_text('{"file": "x/a.smt2", "verdicts": "T??", "error": null}\n'
                       '{"file": "x/b.smt2", "verdicts": "", "error": null}\n')
    assert P.main(["--jsonl", str(records), "--pin", str(pin)]) == 1
    assert "LOST: a.smt2 assert 1: T -> ?" in capsys.readouterr().out


def test_the_repository_pin_is_well_formed_and_canonical():
    """Every line decodes to T/F/? letters and the file is exactly what ``--write`` would write
    (a hand edit that reorders or re-spells a line fails here, not in a corpus run)."""
    path = DATA / "corpus_verdicts.txt"
    pinned = P.read_pin(path)
    assert len(pinned) > 1000
    assert set("".join(pinned.values())) <= set("TF?")
    assert path.read_text() == P.render_pin(pinned)
