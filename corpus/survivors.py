"""The survivor report: every false accept as a diff against the conforming artifact, grouped by
gate and then by operator - what a developer acts on, as mutmut's "survived" list is."""
from __future__ import annotations

import difflib

from corpus.measure import Measurement, is_planted

MAX_DIFF_LINES = 40


def diff(conforming: bytes, mutant: bytes | None, target: str, mutant_id: str) -> str:
    """A unified diff (3 lines of context); a deleted target diffs against nothing."""
    def lines(b: bytes | None) -> list[str]:
        return [] if b is None else b.decode("utf-8", "replace").splitlines(keepends=True)
    out = difflib.unified_diff(lines(conforming), lines(mutant), fromfile=f"a/{target}",
                               tofile=f"b/{target}" + (" (deleted)" if mutant is None else ""), n=3)
    text = "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in out)
    return text or f"(no textual difference: {mutant_id})\n"


def survivors(summary: dict, m: Measurement) -> list[dict]:
    """Per gate with false accepts: {loop, gate, status, groups: {operator: [{mutant, family,
    note, diff}]}}, gates in summary order, operators sorted, mutants in generation order."""
    out = []
    for g in summary["gates"]:
        if not g["survivors"]:
            continue
        target, conforming = m.conforming[g["loop"]]
        groups: dict[str, list[dict]] = {}
        for s in g["survivors"]:
            mut = m.mutants[s["mutant"]]
            groups.setdefault(s["operator"], []).append({
                "mutant": mut.id, "family": mut.family, "note": mut.note,
                "diff": diff(conforming, mut.content, target, mut.id)})
        out.append({"loop": g["loop"], "gate": g["gate"], "status": g["status"],
                    "planted": is_planted(g["status"]), "count": len(g["survivors"]),
                    "groups": dict(sorted(groups.items()))})
    return out


def render(report: list[dict], *, planted: bool = True, max_diff_lines: int | None = MAX_DIFF_LINES) -> str:
    """Markdown: one section per gate, one per operator, each survivor's diff in a code block."""
    lines = []
    for g in report:
        if g["planted"] and not planted:
            continue
        lines.append(f"## {g['loop']}:{g['gate']} [{g['status']}] - {g['count']} surviving destroying "
                     f"mutant{'s' if g['count'] != 1 else ''} (false accepts)")
        for op, items in g["groups"].items():
            lines.append(f"\n### {op} ({len(items)})")
            for it in items:
                body = it["diff"].splitlines()
                if max_diff_lines is not None and len(body) > max_diff_lines:
                    body = body[:max_diff_lines] + [f"... ({len(it['diff'].splitlines()) - max_diff_lines} more lines)"]
                lines += [f"\n{it['mutant']} ({it['family']}): {it['note']}", "```diff", *body, "```"]
        lines.append("")
    return "\n".join(lines) if lines else "No surviving destroying mutants.\n"
