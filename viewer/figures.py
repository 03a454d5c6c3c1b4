"""The overview's figures (SVG, deterministic): outcome composition per arm, and the per-arm
completion and amplified rates with their Wilson 95% intervals (the numbers of the per-arm table)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harness.core.outcomes import Outcome  # noqa: E402
from harness.core.table import PerArmRow  # noqa: E402

OUTCOME_ORDER = tuple(o.value for o in Outcome)  # the adjudicator's order (harness.core.outcomes)
COLORS = {o.value: c for o, c in ((Outcome.COMPLETED, "#1a9850"), (Outcome.RECOVERED, "#91cf60"),
                                  (Outcome.AMPLIFIED, "#d73027"), (Outcome.SAFE_STOP, "#4575b4"),
                                  (Outcome.FALSE_STOP, "#fdae61"), (Outcome.ACCEPTANCE_FAIL, "#f46d43"),
                                  (Outcome.UNSAFE, "#762a83"), (Outcome.VOID, "#999999"))}
RC: dict[Any, Any] = {"svg.hashsalt": "proof-harness-viewer", "svg.fonttype": "path", "font.size": 9}
META = {"Date": None, "Creator": None}


def outcome_bars(counts: dict[str, dict[str, int]], arms: list[str], out: Path) -> str:
    """Stacked horizontal bars: cells of each outcome per arm (void included, in grey)."""
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(7, 0.6 + 0.42 * max(len(arms), 1)))
        for i, arm in enumerate(arms):
            left = 0
            for o in OUTCOME_ORDER:
                n = counts.get(arm, {}).get(o, 0)
                if n:
                    ax.barh(i, n, left=left, color=COLORS[o], label=o, edgecolor="white", linewidth=0.5)
                    left += n
        ax.set_yticks(range(len(arms)), arms)
        ax.invert_yaxis()
        ax.set_xlabel("cells")
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles))
        ax.legend([uniq[o] for o in OUTCOME_ORDER if o in uniq], [o for o in OUTCOME_ORDER if o in uniq],
                  loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(arms) > 2 else -0.5), ncol=4, frameon=False)
        ax.set_title("Outcomes per arm (all recorded cells)")
        fig.tight_layout()
        fig.savefig(out, format="svg", metadata=META)
        plt.close(fig)
    return out.name


def rate_intervals(rows: list[PerArmRow], out: Path) -> str:
    """Completion (null cells) and amplified (injected cells) per arm, Wilson 95% intervals; an
    empty denominator is drawn as 'n/a', never as 0."""
    with plt.rc_context(RC):
        fig, axes = plt.subplots(1, 2, figsize=(7, 0.8 + 0.42 * max(len(rows), 1)), sharey=True)
        for ax, (rates, title, color) in zip(axes, (([r.completion for r in rows], "completion, null cells", "#1a9850"),
                                                    ([r.amplified for r in rows], "amplified, injected cells",
                                                     "#d73027"))):
            for i, p in enumerate(rates):
                rate, lo, hi = p.rate, p.lo, p.hi
                if rate is None or lo is None or hi is None:  # an empty denominator (n = 0): no rate
                    ax.text(0.5, i, "n/a (0/0)", va="center", ha="center", color="#777777")
                    continue
                ax.errorbar(100 * rate, i, xerr=[[100 * (rate - lo)], [100 * (hi - rate)]], fmt="o",
                            color=color, capsize=3)
                ax.annotate(f"{p.k}/{p.n}", (100 * rate, i), textcoords="offset points", xytext=(0, 6),
                            ha="center", fontsize=7)
            ax.set_xlim(-3, 103)
            ax.set_xlabel("% (Wilson 95%)")
            ax.set_title(title)
            ax.grid(axis="x", alpha=0.3)
        axes[0].set_yticks(range(len(rows)), [r.arm for r in rows])
        axes[0].invert_yaxis()
        fig.tight_layout()
        fig.savefig(out, format="svg", metadata=META)
        plt.close(fig)
    return out.name
