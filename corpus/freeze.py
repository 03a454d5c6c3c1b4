"""Freeze the gates (record their digests) and compare operator families against frozen gates.

The paper's Table 9: the family the gates were repaired against reports saturation; a fresh
family (v2) measured against the *same frozen* gates shows what saturation hid.
"""
from __future__ import annotations

import time
from pathlib import Path

from corpus.catalogue import Loop
from corpus.operators import operators
from harness.core import runio

FREEZE_VERSION = 1


def freeze(loops: list[Loop]) -> dict:
    gates = {}
    for lp in loops:
        for g in lp.gates():
            gates[f"{lp.id}:{g.path.relative_to(lp.dir)}"] = {
                "loop": lp.id, "gate": g.name, "status": g.status, "digest": g.digest(),
                "files": len(g.files())}
    return {"version": FREEZE_VERSION, "frozen_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "repaired_against": sorted({f"{o.family}:{o.name}" for o in operators("v1")}),
            "gates": gates}


def verify(frozen: dict, loops: list[Loop]) -> list[str]:
    """Differences between the frozen digests and the gates on disk (empty list = still frozen)."""
    now = freeze(loops)["gates"]
    probs = []
    for key, rec in frozen["gates"].items():
        if key.split(":", 1)[0] not in {lp.id for lp in loops}:
            continue
        if key not in now:
            probs.append(f"{key}: gate removed since freeze")
        elif now[key]["digest"] != rec["digest"]:
            probs.append(f"{key}: gate changed since freeze")
    for key in now:
        if key not in frozen["gates"]:
            probs.append(f"{key}: gate added since freeze")
    return probs


def load_frozen(path: str | Path) -> dict:
    try:  # the safe reader: a FIFO (it hung) or a file nested past the bound (a RecursionError) is one line
        data = runio.parse_json(runio.read_bytes(path, "freeze file", limit=64 << 20, follow=True), str(path))
    except (runio.UnsafeFile, OSError) as exc:
        raise ValueError(f"{path}: not a corpus freeze file ({getattr(exc, 'message', None) or exc})") from None
    if not isinstance(data, dict) or data.get("version") != FREEZE_VERSION or \
            not isinstance(data.get("gates"), dict) or \
            not all(isinstance(v, dict) and "digest" in v for v in data["gates"].values()):
        raise ValueError(f"{path}: not a corpus freeze file (expected version {FREEZE_VERSION} and a gates table)")
    return data


def saturation_table(summary: dict, left: str = "v1", right: str = "v2") -> str:
    """Table 9 side by side, over the non-planted gates."""
    t = summary["totals"]["current_and_repaired"]["by_family"]
    gates = [g for g in summary["gates"] if not g["status"].startswith("planted")]

    def covered(fam):
        return sum(1 for lp in {g["loop"] for g in gates}
                   if any(g["loop"] == lp and g["by_family"][fam]["mutants"] for g in gates))

    rows = [("loops covered", str(covered(left)), str(covered(right))),
            ("destroying mutants", str(t[left]["destroying_n"]), str(t[right]["destroying_n"])),
            ("preserving mutants", str(t[left]["preserving_n"]), str(t[right]["preserving_n"])),
            ("gate errors (incapacity)", str(t[left]["incapacity"]), str(t[right]["incapacity"])),
            ("false accepts (Wilson 95%)", t[left]["false_accept"]["fmt"], t[right]["false_accept"]["fmt"]),
            ("false rejects (Wilson 95%)", t[left]["false_reject"]["fmt"], t[right]["false_reject"]["fmt"])]
    w = max(len(r[1]) for r in rows) + 2
    out = [f"{'':28}{left + ' (saturated)':{w}}{right + ' (post-freeze)'}"]
    out += [f"{a:28}{b:{w}}{c}" for a, b, c in rows]
    out.append("Same frozen gates in both columns; the comparison is the result, not either column.")
    return "\n".join(out)
