"""``absint compare --html FILE``: one self-contained page people read, in the style of SMT-COMP's
results pages: wrong answers first, then what each reasoner solved and its CPU, a cactus plot,
and a sortable per-file table whose rows link to that file's disagreements.

It reads the object ``summary.json`` holds (:func:`absint.compare.outputs.write_json`), so a
page can be made again from a saved run. No script or style is fetched from elsewhere; the
plot is inline SVG. Wording is honest about what the referee decided: a verdict is
"confirmed" only where the referee gave the same T or F.
"""

from __future__ import annotations

import html
import json
from typing import Any

from absint.compare.summary import confirmed

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left}th{cursor:pointer;background:#f4f4f4}
.bad{color:#b00;font-weight:bold}.good{color:#070}.gap{color:#a60}code{background:#f6f6f6}
"""

_SORT = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var down = th.dataset.down !== '1';
    th.dataset.down = down ? '1' : '0';
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v || a.cells[col].textContent;
      var y = b.cells[col].dataset.v || b.cells[col].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
      return down ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def write_html(path: str, summary: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page(summary))


def page(s: dict[str, Any]) -> str:
    """The whole page for a ``summary.json`` object."""
    referee = next((r for r in s["reasoners"] if r != "absint"), None)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>absint compare</title>"
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>absint compare</h1><p><code>{_e(s['settings'].get('command', ''))}</code> &middot; "
             f"{_e(s['settings'].get('files'))} file(s) &middot; generated {_e(s.get('generated', ''))}</p>",
             _wrong_answers(s, referee), _solved(s, referee), _cactus(s), _files(s, referee),
             f"<script>{_SORT}</script></body></html>"]
    return "\n".join(parts)


def _wrong_answers(s: dict[str, Any], referee: str | None) -> str:
    out = ["<h2 id='wrong'>Wrong answers</h2>"]
    if referee is None:
        return out[0] + "<p>No referee in this run: nothing was checked.</p>"
    title = referee.upper() if referee == "z3" else referee
    if not s["unsound"]:
        out.append(f"<p class='good'>None: no T or F of absint is contradicted by {_e(title)}.</p>")
    else:
        out.append(f"<p class='bad'>{s['unsound_count']} verdict(s) of absint contradicted by {_e(title)}:</p><ul>")
        seen: set[str] = set()
        for u in s["unsound"]:
            anchor = _anchor(u.get("file", ""))
            ident = "" if anchor in seen else f" id='{anchor}'"
            seen.add(anchor)
            model = u.get("model_of_assert") or u.get("model")
            out.append(f"<li{ident}><b>{_e(u.get('file'))}:{_e(u.get('line'))}</b> (assert {_e(u.get('index'))}): "
                       f"absint {_e(u.get('absint'))} by {_e(u.get('layer'))}, {_e(title)} {_e(u.get('z3'))}; "
                       f"<code>{_e(u.get('assert', ''))}</code>"
                       + (f"; {_e(u.get('kind'))}: <code>{_e(json.dumps(model))}</code>" if model else "")
                       + (f"; {_e(u['note'])}" if u.get("note") else "") + "</li>")
        out.append("</ul>")
    matrix = s.get(f"confusion_absint_x_{referee}", {})
    decided, given = confirmed(matrix)
    out.append(f"<p>{decided} of absint's {given} T/F verdicts were <b>decided by {_e(title)}</b> and confirmed; "
               f"it did not decide {given - decided} of them (it gave up, or its budget ended), so this run "
               f"does not check those.</p>")
    return "\n".join(out)


def _solved(s: dict[str, Any], referee: str | None) -> str:
    cols = ["asserts", "T", "F", "open", "gave up", "not reached", "n/a", "seconds"]
    rows = "".join("<tr><td>" + _e(name) + "</td>" + "".join(f"<td>{_e(t.get(c, ''))}</td>" for c in cols) + "</tr>"
                   for name, t in s["totals"].items())
    ratios = "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in s.get("ratios", {}).items())
    return (f"<h2 id='solved'>Solved</h2><table><thead><tr><th>reasoner</th>"
            + "".join(f"<th>{_e(c if c != 'seconds' else 'CPU s')}</th>" for c in cols)
            + f"</tr></thead><tbody>{rows}</tbody></table><ul>{ratios}</ul>"
            "<p>T implied, F refuted, open: neither, gave up: timeout or unknown, not reached: the file's "
            "CPU budget was spent, n/a: not translated.</p>")


def _cactus(s: dict[str, Any], width: int = 640, height: int = 320) -> str:
    """Files solved (x) against the cumulative CPU seconds needed (y), one line per reasoner."""
    series = {}
    for name in s["reasoners"]:
        times = sorted(f[name]["seconds"] for f in s["files"] if name in f and f[name].get("seconds") is not None)
        total, points = 0.0, []
        for t in times:
            total += t
            points.append(total)
        series[name] = points
    top = max((p[-1] for p in series.values() if p), default=1.0) or 1.0
    n = max((len(p) for p in series.values()), default=1) or 1
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    lines = []
    for k, (name, pts) in enumerate(series.items()):
        xy = " ".join(f"{40 + (i + 1) * (width - 60) / n:.1f},{height - 30 - v * (height - 50) / top:.1f}"
                      for i, v in enumerate(pts))
        lines.append(f"<polyline fill='none' stroke='{colors[k % 4]}' stroke-width='2' points='{xy}'/>"
                     f"<text x='{width - 150}' y='{20 + 16 * k}' fill='{colors[k % 4]}'>{_e(name)}</text>")
    return (f"<h2 id='cactus'>Cactus plot</h2><svg width='{width}' height='{height}' role='img' "
            f"aria-label='files solved against cumulative CPU seconds'>"
            f"<line x1='40' y1='{height - 30}' x2='{width - 20}' y2='{height - 30}' stroke='#888'/>"
            f"<line x1='40' y1='20' x2='40' y2='{height - 30}' stroke='#888'/>"
            f"<text x='{width / 2 - 40}' y='{height - 8}'>files ({n})</text>"
            f"<text x='2' y='14'>CPU s (to {top:.3g})</text>" + "".join(lines) + "</svg>")


def _files(s: dict[str, Any], referee: str | None) -> str:
    names = s["reasoners"]
    head = ["file", "family", "asserts"] + [f"{n} T" for n in names] + ["gap", "unsound"] + [f"{n} s" for n in names]
    body = []
    for f in s["files"]:
        gap = _gap(f, referee)
        cells = [f"<td><a href='#{_anchor(f['file'])}'>{_e(f['file'])}</a></td>" if f.get("unsound")
                 else f"<td>{_e(f['file'])}</td>", f"<td>{_e(f.get('family', ''))}</td>", f"<td>{f['asserts']}</td>"]
        cells += [f"<td>{_e(f[n]['T']) if n in f else ''}</td>" for n in names]
        cells += [f"<td class='{'gap' if gap > 0 else ''}'>{gap}</td>",
                  f"<td class='{'bad' if f.get('unsound') else ''}'>{f.get('unsound', 0)}</td>"]
        cells += [f"<td>{_e(f[n]['seconds']) if n in f else ''}</td>" for n in names]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ("<h2 id='files'>Per file</h2><p>Click a column to sort. <i>gap</i>: asserts the referee proved "
            "implied and absint did not.</p><table class='sortable'><thead><tr>"
            + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>" + "".join(body)
            + "</tbody></table>")


def _gap(f: dict[str, Any], referee: str | None) -> int:
    """Asserts of the file the referee proved implied and absint did not."""
    if referee is None or referee not in f or "absint" not in f:
        return 0
    return sum(1 for z, a in zip(f[referee].get("letters", ""), f["absint"].get("letters", "")) if z == "T" and a != "T")


def _anchor(file: str) -> str:
    return "u-" + "".join(c if c.isalnum() else "-" for c in file)
