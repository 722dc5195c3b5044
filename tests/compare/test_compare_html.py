"""``absint compare --html``: the report page. Its structure read back with the standard
library's parser (wrong answers first, one table row per file, the honest count of what the
referee decided, links from a file to its wrong answers); in headless Chromium when Debian's
``chromium`` is installed (rendered without console errors, a screenshot taken)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from absint.cli import main
from absint.compare.html import page
from repo_paths import EXAMPLES


class Outline(HTMLParser):
    """Headings, the per-file table's rows, ids and links of a page."""

    def __init__(self):
        super().__init__()
        self.headings, self.ids, self.links, self.rows, self.text = [], set(), set(), 0, []
        self._in, self._tag = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.add(a["href"][1:])
        if tag == "table" and a.get("class") == "sortable":
            self._in = "files"
        if tag == "tr" and self._in == "files":
            self.rows += 1
        self._tag = tag

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = None
        self._tag = None

    def handle_data(self, data):
        if self._tag == "h2":
            self.headings.append(data)
        self.text.append(data)


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    pytest.importorskip("z3")
    out = tmp_path_factory.mktemp("cmp")
    files = [os.path.join(EXAMPLES, f) for f in ("pool_skip.smt2", "jagged_split.smt2", "reshape_chain.smt2")]
    assert main(["compare", *files, "--against", "z3", "--out", str(out), "-q", "--no-cache",
                 "--html", str(out / "report.html")]) == 0
    return json.loads((out / "summary.json").read_text()), (out / "report.html").read_text()


def test_the_page_puts_wrong_answers_first_and_has_a_row_per_file(summary):
    s, text = summary
    o = Outline()
    o.feed(text)
    assert o.headings == ["Wrong answers", "Solved", "Cactus plot", "Per file"]
    assert o.rows == 1 + len(s["files"])  # the header row and one per file
    body = " ".join(o.text)
    assert "None: no T or F of absint is contradicted by Z3" in body
    matrix = s["confusion_absint_x_z3"]
    decided = sum(n for x, col in matrix.items() if x in "TF" for c, n in col.items() if c in "TF")
    assert f"{decided} of absint's" in body and "decided by Z3" in body
    assert page(s) == text  # the page is a function of summary.json


def test_a_wrong_answer_is_listed_first_and_its_file_links_to_it(summary):
    s, _ = summary
    bad = copy.deepcopy(s)
    f = bad["files"][0]
    f["unsound"] = 1
    bad["unsound_count"] = 1
    bad["unsound"] = [{"file": f["file"], "index": 3, "line": 25, "absint": "T", "layer": "interval-congruence",
                       "z3": "?", "kind": "counterexample", "assert": "(<= 2 H)", "model_of_assert": {"H": 1}}]
    o = Outline()
    o.feed(page(bad))
    body = " ".join(o.text)
    assert "1 verdict(s) of absint contradicted by Z3" in body and f"{f['file']}:25" in body
    assert o.links and o.links <= o.ids  # each link from the table lands on a wrong answer


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="Debian's chromium is not installed (apt-get install chromium): the page is "
                           "checked with the standard library's parser only")
def test_headless_chromium_renders_the_page_without_console_errors(summary, tmp_path):
    _, text = summary
    report = tmp_path / "report.html"
    report.write_text(text)
    shot = tmp_path / "report.png"
    run = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                          "--v=0", f"--screenshot={shot}", "--window-size=1200,1600", report.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console  # the page logs nothing: an error in its script would
    assert shot.exists() and shot.stat().st_size > 1000
