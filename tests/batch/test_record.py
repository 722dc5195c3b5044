"""One ``FileRecord`` for ``absint analyze --jsonl``: every producer's record has the contract's
keys in the contract's order, and reads back as the same record."""

from __future__ import annotations

import json

import pytest

from absint.batch.analyze import analyze_file
from absint.batch.record import FileRecord
from benchmarks import generators as G

LEADING = ["file", "asserts", "verdicts", "seconds", "error"]
ANALYSED = ["parse_seconds", "layers", "contradiction", "example_violations"]


def _files(tmp_path) -> dict[str, str]:
    (tmp_path / "good.smt2").write_text(G.build("conv", 3, 0).text)
    (tmp_path / "bad.smt2").write_text("(declare-const s0 Int)\n(assert (> s0 1)\n")
    return {name: str(tmp_path / name) for name in ("good.smt2", "bad.smt2", "missing.smt2")}


def test_records_of_every_kind_have_the_contracts_keys_in_order(tmp_path):
    paths = _files(tmp_path)
    assert list(analyze_file(paths["good.smt2"]).to_json()) == LEADING + ["sha256"] + ANALYSED
    assert list(analyze_file(paths["bad.smt2"]).to_json()) == LEADING + ["sha256"]
    assert list(analyze_file(paths["missing.smt2"]).to_json()) == LEADING
    assert list(FileRecord.timed_out("x.smt2", 2).with_sha256("ab").to_json()) == LEADING + ["sha256"]
    assert FileRecord.timed_out("x.smt2", 2, unresponsive=True).error == "timeout: exceeded 2 s (worker unresponsive)"
    assert FileRecord.out_of_memory("x.smt2", 64).error == "memory limit exceeded (64 MB)"


@pytest.mark.parametrize("name", ["good.smt2", "bad.smt2", "missing.smt2"])
def test_a_record_reads_back_as_itself_and_prints_the_same_line(tmp_path, name):
    record = analyze_file(_files(tmp_path)[name])
    line = json.dumps(record.to_json())
    again = FileRecord.from_json(json.loads(line))
    assert again == record
    assert json.dumps(again.to_json()) == line


def test_a_json_object_that_is_not_a_record_is_a_value_error():
    with pytest.raises(ValueError):
        FileRecord.from_json({"asserts": 3})
    with pytest.raises(ValueError):
        FileRecord.from_json({"file": "a.smt2", "asserts": "many"})


def test_presets_are_in_the_record_only_when_given_and_read_back(tmp_path):
    path = _files(tmp_path)["good.smt2"]
    plain = analyze_file(path).to_json()
    assert "presets" not in plain and "preset_refused" not in plain
    record = analyze_file(path, presets=("ge2",))
    assert list(record.to_json()) == LEADING + ["presets", "sha256"] + ANALYSED
    line = json.dumps(record.to_json())
    assert FileRecord.from_json(json.loads(line)) == record
    refused = FileRecord.refused("x.smt2", 3, "preset ge2 refused: x_size0 >= 2 is false", ("ge2",), sha256="ab")
    assert list(refused.to_json()) == LEADING + ["presets", "sha256", "preset_refused"]
    assert FileRecord.from_json(json.loads(json.dumps(refused.to_json()))) == refused
    # a record the parent makes (timeout, death) is stamped with the run's presets
    assert FileRecord.timed_out("x.smt2", 2).with_presets(("ge2",)).to_json()["presets"] == ["ge2"]
