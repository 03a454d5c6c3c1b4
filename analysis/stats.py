"""Seeded percentile cluster bootstrap (vectorised), Fisher exact tests, Benjamini-Hochberg FDR.

The bootstrap resamples *clusters* with replacement. For cluster c let s_a[c], s_b[c] be the two
arms' success counts over the matched cells in c, and m[c] the number of matched cells (both arms
have a scored record for every one, so the pair is kept together: a paired resample). One
bootstrap replicate draws C clusters with replacement (integer draws, exact on any platform),
counted as w over clusters (w ~ Multinomial(C, 1/C)); the replicate difference is
(w.s_a - w.s_b) / (w.m). All replicates come from one
``numpy.random.Generator(PCG64(seed))`` stream, drawn in row chunks (chunking does not change the
stream), with integer matrix products, so a seed fixes the interval on any machine.
The interval is the percentile interval (numpy ``quantile``, linear interpolation).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

CHUNK_ELEMS = 4_000_000  # max B_chunk * C multinomial counts held at once


@dataclass(frozen=True)
class BootResult:
    estimate: float | None
    lo: float | None
    hi: float | None
    B: int
    seed: int
    n_clusters: int
    n_matched: int
    k_a: int
    k_b: int
    alpha: float = 0.05

    @property
    def level(self) -> float:
        """Confidence level of the percentile interval, 1 - alpha (0.95 by default)."""
        return 1.0 - self.alpha

    def method(self, cluster: str) -> dict:
        return {"kind": "cluster_bootstrap", "B": self.B, "seed": self.seed, "cluster": cluster,
                "interval": f"percentile {100 * self.level:.4g}%", "level": self.level,
                "n_clusters": self.n_clusters, "paired": True,
                "rng": f"numpy {np.__version__} Generator(PCG64(seed)).integers"}


def cluster_sums(cluster_ids, y_a, y_b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-cluster sums of both arms' outcomes and matched-cell counts (clusters in sorted order)."""
    codes, uniques = pd.factorize(pd.Series(cluster_ids), sort=True)
    C = len(uniques)
    s_a = np.bincount(codes, weights=np.asarray(y_a, dtype=np.float64), minlength=C).astype(np.int64)
    s_b = np.bincount(codes, weights=np.asarray(y_b, dtype=np.float64), minlength=C).astype(np.int64)
    m = np.bincount(codes, minlength=C).astype(np.int64)
    return s_a, s_b, m


def bootstrap_counts(rng: np.random.Generator, C: int, rows: int) -> np.ndarray:
    """Per replicate, how often each of the C clusters is drawn when C clusters are drawn with
    replacement: integer draws (``Generator.integers``, exact on every platform, unlike
    ``multinomial`` whose binomial sampler uses floating point) counted with one bincount."""
    idx = rng.integers(0, C, size=(rows, C))
    idx += (np.arange(rows, dtype=idx.dtype) * C)[:, None]
    return np.bincount(idx.ravel(), minlength=rows * C).reshape(rows, C).astype(np.int64)


def paired_cluster_bootstrap(s_a, s_b, m, B: int = 2000, seed: int = 0,
                             alpha: float = 0.05) -> BootResult:
    """Difference in pooled rates (a - b) with a percentile cluster-bootstrap interval."""
    s_a = np.asarray(s_a, dtype=np.int64)
    s_b = np.asarray(s_b, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    C = len(m)
    N = int(m.sum())
    if C == 0 or N == 0:
        return BootResult(None, None, None, B, seed, C, 0, 0, 0, alpha)
    est = (s_a.sum() - s_b.sum()) / N
    rng = np.random.Generator(np.random.PCG64(seed))
    S = np.stack([s_a - s_b, m], axis=1)  # (C, 2) integer
    reps = np.empty(B, dtype=np.float64)
    chunk = max(1, min(B, CHUNK_ELEMS // max(C, 1)))
    for start in range(0, B, chunk):
        rows = min(chunk, B - start)
        W = bootstrap_counts(rng, C, rows)  # (rows, C) int64
        D = W @ S  # exact integer arithmetic
        reps[start:start + rows] = D[:, 0] / D[:, 1]
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return BootResult(float(est), float(lo), float(hi), B, seed, C, N, int(s_a.sum()), int(s_b.sum()), alpha)


def naive_pandas_bootstrap(df: pd.DataFrame, cluster_col: str, ya: str, yb: str,
                           B: int = 2000, seed: int = 0, alpha: float = 0.05) -> tuple[float, float, float]:
    """Reference implementation: per resample, draw clusters and concatenate their rows with pandas.

    Straightforward and slow; used by tests (agreement in distribution) and by the benchmark.
    """
    rng = np.random.default_rng(seed)
    groups = {c: g for c, g in df.groupby(cluster_col, sort=True)}
    ids = list(groups)
    reps = []
    for _ in range(B):
        pick = rng.choice(len(ids), size=len(ids), replace=True)
        sample = pd.concat([groups[ids[i]] for i in pick], ignore_index=True)
        reps.append(sample[ya].mean() - sample[yb].mean())
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(df[ya].mean() - df[yb].mean()), float(lo), float(hi)


def fisher_two_sided(k_a: int, n_a: int, k_b: int, n_b: int) -> float | None:
    """Two-sided Fisher exact p for [[k_a, n_a-k_a], [k_b, n_b-k_b]]; None if a denominator is 0."""
    if n_a == 0 or n_b == 0:
        return None
    from scipy.stats import fisher_exact

    return float(fisher_exact([[k_a, n_a - k_a], [k_b, n_b - k_b]], alternative="two-sided").pvalue)


def bh_adjust(p) -> np.ndarray:
    """Benjamini-Hochberg step-up q values (same as statsmodels multipletests 'fdr_bh')."""
    p = np.asarray(p, dtype=np.float64)
    n = len(p)
    if n == 0:
        return p
    order = np.argsort(p, kind="mergesort")
    ranked = p[order] * n / np.arange(1, n + 1)
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty(n)
    q[order] = np.minimum(q_sorted, 1.0)
    return q


def bh_reject(p, alpha: float) -> np.ndarray:
    """Rejections of the BH step-up procedure at level alpha."""
    return bh_adjust(p) <= alpha
