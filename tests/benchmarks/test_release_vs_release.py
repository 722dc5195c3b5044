"""The release-against-release benchmark's parts: the files it picks, one timed run read back,
the verdict differences it reports, and a built release reused (tests never time runs or build
a venv)."""

from __future__ import annotations

import subprocess
import sys

from benchmarks import release_vs_release as R
from repo_paths import EXAMPLES, ROOT


def test_differences_are_lost_gained_and_flipped_per_assert():
    release = {"a.smt2": ("TT?F", 0, None), "b.smt2": ("T?", 0, None), "c.smt2": ("T", 0, None)}
    tree = {"a.smt2": ("T?TT", 0, None), "b.smt2": ("T?", 0, None), "c.smt2": ("", 0, "timeout")}
    d = R.differences(release, tree)
    assert [(e["file"], e["assert"], e["release"], e["tree"]) for e in d["lost"]] == [("a.smt2", 1, "T", "?")]
    assert [(e["assert"], e["tree"]) for e in d["gained"]] == [(2, "T")]
    assert [(e["assert"], e["release"], e["tree"]) for e in d["flips"]] == [(3, "F", "T")]
    assert d["files_mismatched"] == ["c.smt2"]
    assert R.differences(tree, tree) == {"lost": [], "gained": [], "flips": [], "files_mismatched": []}


def test_a_quarter_is_every_fourth_file_and_n_files_are_spread_over_the_sorted_corpus(tmp_path):
    for i in range(10):
        (tmp_path / f"f{i}.smt2").write_text("")
    (tmp_path / "notes.txt").write_text("")
    names = lambda paths: [p.rsplit("/", 1)[1] for p in paths]  # noqa: E731
    assert names(R.chosen_files(tmp_path, None, True)) == ["f0.smt2", "f4.smt2", "f8.smt2"]
    assert names(R.chosen_files(tmp_path, 5, False)) == ["f0.smt2", "f2.smt2", "f4.smt2", "f6.smt2", "f8.smt2"]
    assert len(R.chosen_files(tmp_path, None, False)) == len(R.chosen_files(tmp_path, 99, False)) == 10


def test_one_run_of_the_tree_reads_its_letters_and_children_cpu(tmp_path):
    files = [str(EXAMPLES / "le_chain.smt2"), str(EXAMPLES / "pool_skip.smt2")]
    run = R.run_once(R.Version("tree", sys.executable, ROOT), files, 1, tmp_path / "out.jsonl")
    assert set(run.records) == {"le_chain.smt2", "pool_skip.smt2"}
    letters, violations, error = run.records["le_chain.smt2"]
    assert letters and set(letters) <= set("TF?") and violations == 0 and error is None
    assert run.cpu >= run.in_files > 0  # the children's CPU holds the files' own


def test_the_runs_write_byte_code_and_see_no_pythonpath(tmp_path, monkeypatch):
    """Each side's processes run with the byte code the warm-up wrote (PYTHONDONTWRITEBYTECODE,
    set on some machines, would make every process compile its version's sources again) and
    without a PYTHONPATH that could put one version's package in the other's way."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    seen = tmp_path / "env.txt"
    fake = tmp_path / "fake-python"  # stands in for an interpreter: notes its environment, writes no records
    fake.write_text(f"#!/bin/sh\nenv > {seen}\nfor a; do out=$a; done\n: > $out\n")
    fake.chmod(0o755)
    R.run_once(R.Version("fake", str(fake), tmp_path), ["x.smt2"], 1, tmp_path / "out.jsonl")
    names = {line.split("=", 1)[0] for line in seen.read_text().splitlines()}
    assert "PYTHONDONTWRITEBYTECODE" not in names and "PYTHONPATH" not in names
    assert "PATH" in names  # the rest of the environment is passed on


def test_a_release_built_for_the_same_commit_is_reused_not_rebuilt(tmp_path):
    """The mark names the commit its venv was built for: the same commit is reused as it is
    (a rebuild would replace the planted interpreter and the file beside it)."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / R.BUILT_MARK).write_text(commit + "\n")
    (tmp_path / "kept").write_text("")
    version = R.build_release("HEAD", tmp_path)
    assert version.root == tmp_path and version.label == f"release {commit[:7]}"
    assert (tmp_path / "kept").exists()


def test_a_build_dir_that_is_not_a_build_is_refused_and_left_as_it_was(tmp_path):
    """``--build-dir /tmp`` once deleted all of /tmp: a folder without the build mark holding
    anything is refused, not cleared; a stale build of another commit is replaced."""
    import pytest

    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(R.BuildDirRefused, match="not touched"):
        R.build_release("HEAD", tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / R.BUILT_MARK).write_text("0" * 40 + "\n")
    (stale / "old").write_text("")
    R._clear_build_dir(stale)  # a build of another commit: ours to remove
    assert not stale.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    R._clear_build_dir(empty)
    assert not empty.exists()


def test_the_command_refuses_a_foreign_build_dir_with_a_message(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    out = subprocess.run([sys.executable, "-m", "benchmarks.release_vs_release", "--files", "1", "--pairs", "1",
                          "--corpus", str(EXAMPLES), "--build-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "not touched" in out.stderr, out.stderr
    assert (tmp_path / "precious.txt").exists()
