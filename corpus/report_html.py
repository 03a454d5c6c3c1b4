"""A static HTML page per gate for ``harness corpus measure --out``: false-accept and false-reject
rates with their Wilson intervals and denominators, the vacuity verdicts with the mutant that
proves each, the CI verdict, and every surviving mutant's diff against the conforming artifact
grouped by operator (as mutmut shows survivors). Plain HTML with inline CSS: no script, no
network, no CDN; it opens from the file system. Kept apart from the run viewer (harness view).
"""
from __future__ import annotations

import re
from html import escape
from pathlib import Path

from corpus.measure import VACUITY_CLASSES, gate_failures, is_planted
from corpus.text import escape_controls


def _e(text) -> str:
    """HTML-escaped, with every control character shown as its escape (a gate's output is hostile:
    NUL bytes and ANSI escapes must not reach the page raw)."""
    return escape(escape_controls(str(text)))

CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}.bad{color:#a00;font-weight:600}.ok{color:#070}.muted{color:#666}
pre{background:#f8f8f8;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:12.5px}
.add{color:#070;background:#eaffea;display:block}.del{color:#a00;background:#ffecec;display:block}
.hunk{color:#558;display:block}code{font-size:12.5px}"""


def _page(title: str, body: str) -> str:
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


def _slug(g: dict) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{g['loop']}--{g['gate']}").strip("-") + ".html"


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        cls = "add" if line.startswith("+") and not line.startswith("+++") else \
            "del" if line.startswith("-") and not line.startswith("---") else "hunk" if line.startswith("@@") else ""
        out.append(f'<span class="{cls}">{_e(line)}</span>' if cls else _e(line))
    return "<pre>" + "\n".join(out) + "</pre>"


def _rate_row(name: str, p: dict, judged: int, total: int, of: str) -> str:
    return (f"<tr><td>{name}</td><td>{_e(p['fmt'])}</td><td>{p['k']}</td><td>{judged}</td>"
            f"<td>{total}</td><td>{of}</td></tr>")


def gate_page(g: dict, surv: dict | None, method: str, planted: dict | None) -> str:
    r = g["all"]
    if is_planted(g["status"]):
        fails = [] if planted is None or planted["found"] else [f"planted defect {planted['planted']!r} not detected"]
    else:
        fails = gate_failures(g)
    verdict = ('<p class="ok">CI verdict: passes (--fail-on-vacuous)</p>' if not fails else
               "<p class=\"bad\">CI verdict: fails (--fail-on-vacuous)</p><ul>" +
               "".join(f"<li>{_e(f)}</li>" for f in fails) + "</ul>")
    rows = [_rate_row("false accept", r["false_accept"], r["destroying_judged"], r["destroying_n"],
                      "accepted destroying / judged destroying"),
            _rate_row("false reject", r["false_reject"], r["preserving_judged"], r["preserving_n"],
                      "rejected preserving / judged preserving")]
    fam_rows = "".join(
        f"<tr><td>{_e(f)}</td><td>{_e(x['false_accept']['fmt'])}</td>"
        f"<td>{_e(x['false_reject']['fmt'])}</td><td>{x['incapacity']}</td><td>{x['equivalent']}</td></tr>"
        for f, x in g["by_family"].items())
    vac = "".join(
        f"<tr><td>{c}</td><td class=\"{'bad' if g['vacuity'][c]['verdict'] in ('vacuous', 'self-attesting') else ''}\">"
        f"{_e(g['vacuity'][c]['verdict'])}</td><td>{_e(', '.join(g['vacuity'][c]['proved_by'][:3]) or '-')}</td>"
        f"<td>{g['vacuity'][c]['probes_judged']}</td></tr>" for c in VACUITY_CLASSES)
    body = [f"<p><a href=\"index.html\">all gates</a></p><h1>{_e(g['loop'])}: {_e(g['gate'])}</h1>",
            f"<p>status <b>{_e(g['status'])}</b>; control (the conforming artifact): "
            f"<b>{_e(str(g['control_verdict']))}</b> <span class=\"muted\">{_e((g['control_reason'] or '')[:200])}"
            f"</span></p>", verdict,
            "<h2>Rates (Wilson 95%)</h2><table><tr><th>rate</th><th>value</th><th>k</th><th>judged</th>"
            "<th>mutants</th><th>computed as</th></tr>" + "".join(rows) + "</table>",
            f"<p>incapacity (counted apart): {r['incapacity']}; equivalent mutants (identical bytecode, "
            f"never judged): {r['equivalent']}</p>",
            "<h2>By family</h2><table><tr><th>family</th><th>false accept</th><th>false reject</th>"
            "<th>incapacity</th><th>equivalent</th></tr>" + fam_rows + "</table>",
            "<h2>Vacuity</h2><table><tr><th>class</th><th>verdict</th><th>proved by</th><th>probes judged</th>"
            "</tr>" + vac + "</table>"]
    if surv:
        body.append(f"<h2>Surviving destroying mutants ({surv['count']})</h2>")
        for op, items in surv["groups"].items():
            body.append(f"<h3>{_e(op)} ({len(items)})</h3>")
            for it in items:
                body.append(f"<p><code>{_e(it['mutant'])}</code> ({_e(it['family'])}): "
                            f"{_e(it['note'])}</p>{_diff_html(it['diff'])}")
    else:
        body.append("<h2>Surviving destroying mutants</h2><p>none</p>")
    body.append(f"<h2>Method</h2><pre>{_e(method)}</pre>")
    return _page(f"{g['loop']}: {g['gate']}", "\n".join(body))


def write(out_dir: Path, summary: dict, survivors: list[dict], *, wall_s: float) -> list[Path]:
    """index.html and one page per gate under ``out_dir``; ``wall_s``: the measurement's wall time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    surv = {(s["loop"], s["gate"]): s for s in survivors}
    planted = {(p["loop"], p["gate"]): p for p in summary.get("planted", [])}
    paths, rows = [], []
    for g in summary["gates"]:
        key = (g["loop"], g["gate"])
        p = out_dir / _slug(g)
        p.write_text(gate_page(g, surv.get(key), summary["method"], planted.get(key)), encoding="utf-8")
        paths.append(p)
        vac = ", ".join(g["vacuity"][c]["verdict"] if c == "self-attestation" else c for c in VACUITY_CLASSES
                        if g["vacuity"][c]["verdict"] in ("vacuous", "self-attesting")) or "-"
        rows.append(f"<tr><td><a href=\"{_e(p.name)}\">{_e(g['loop'])}: {_e(g['gate'])}</a></td>"
                    f"<td>{_e(g['status'])}</td><td>{_e(g['all']['false_accept']['fmt'])}</td>"
                    f"<td>{_e(g['all']['false_reject']['fmt'])}</td><td>{g['all']['incapacity']}</td>"
                    f"<td>{_e(str(g['control_verdict']))}</td><td>{_e(vac)}</td></tr>")
    index = ("<h1>Gates measured against mutants</h1>"
             f"<p>families: {_e(', '.join(summary['families']))}; wall {wall_s} s</p>"
             "<table><tr><th>gate</th><th>status</th><th>false accept (Wilson 95%)</th>"
             "<th>false reject (Wilson 95%)</th><th>incapacity</th><th>control</th><th>vacuity</th></tr>"
             + "".join(rows) + "</table>"
             f"<h2>Exclusions ({len(summary['exclusions'])})</h2><ul>"
             + "".join(f"<li>{_e(e['loop'])} [{_e(e['scope'])}] {_e(e['reason'])}: "
                       f"{_e(e['detail'])}</li>" for e in summary["exclusions"]) + "</ul>"
             f"<h2>Method</h2><pre>{_e(summary['method'])}</pre>")
    (out_dir / "index.html").write_text(_page("corpus measurement", index), encoding="utf-8")
    return [out_dir / "index.html", *paths]
