"""The HTML shell every page of the report shares, and escaping for text written into it.

Pages load only files of the report itself (relative URLs): a strict Content-Security-Policy
says so to the browser too, so a report can make no network request even if data in it tried.
Everything that comes from a run (agent text included) is escaped here or set as text by the
browser script, never parsed as markup.
"""
from __future__ import annotations

import html

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'none'; form-action 'none'; base-uri 'none'")
NAV = (("index.html", "Overview"), ("cells.html", "Cells"), ("cells.html#view=units", "Matched units"))


def esc(x) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def shell(title: str, body: str, *, page: str, run_label: str, analysis: bool, scripts: tuple[str, ...] = ()) -> str:
    """A complete page: head (CSP, stylesheet), the navigation bar, ``body``, then ``scripts``."""
    nav = list(NAV) + ([("analysis.html", "Analysis")] if analysis else [])
    links = "".join(f'<a href="{esc(href)}" data-nav="{esc(name.lower())}">{esc(name)}</a>' for href, name in nav)
    tags = "".join(f'<script src="{esc(s)}"></script>' for s in scripts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{esc(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="assets/viewer.css"></head>'
            f'<body data-page="{esc(page)}"><header><span class="brand">proof-harness</span>'
            f'<span class="run">{esc(run_label)}</span><nav>{links}</nav></header>'
            f'<main>{body}</main>{tags}</body></html>\n')


def table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    """An HTML table; cells are already-escaped HTML fragments."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{esc(cls)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def badge(outcome: str) -> str:
    return f'<span class="badge o-{esc(outcome)}">{esc(outcome)}</span>'
