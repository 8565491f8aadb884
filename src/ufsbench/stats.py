"""Significance of the differences between methods: paired t-tests over the feature grid.

The LSDCL protocol (FSASL ``ms2tex.m``): per dataset and metric, the best method is the
one with the highest mean over the feature-count grid; every other method's per-count
scores are compared with the best's by a paired, two-sided Student t-test on the common
feature counts. We add a Holm correction within each (dataset, protocol, metric) family.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.05
TTEST_COLUMNS = (
    "dataset",
    "protocol",
    "metric",
    "method",
    "best_method",
    "mean",
    "statistic",
    "p_value",
    "p_holm",
    "not_worse",
)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values.

    The i-th smallest of ``k`` p-values is multiplied by ``k - i + 1`` (i from 1), the
    results are made non-decreasing in that order (running maximum) and capped at 1.
    NaN p-values stay NaN and do not count in ``k``.

    Parameters
    ----------
    pvalues : array-like of shape (k,)

    Returns
    -------
    ndarray of shape (k,)
        Adjusted p-values in the input order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(6).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"holm: pvalues must be 1-dimensional, got shape {p.shape}")
    adjusted = np.full_like(p, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    k = len(finite)
    if k == 0:
        return adjusted
    order = finite[np.argsort(p[finite], kind="stable")]
    scaled = p[order] * (k - np.arange(k))
    adjusted[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return adjusted


def paired_ttests(curves: pd.DataFrame, exclude=("allfea",)) -> pd.DataFrame:
    """Paired t-test of every method against the best, per (dataset, protocol, metric).

    Parameters
    ----------
    curves : pandas.DataFrame
        As returned by :func:`ufsbench.aggregate.curves`: columns ``dataset``,
        ``method``, ``protocol``, ``metric``, ``n_features``, ``value``.
    exclude : sequence of str, default=("allfea",)
        Methods left out of the comparison (matched case-insensitively).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, protocol, metric, method): ``best_method``, ``mean`` (the
        method's mean over its grid), ``statistic`` and ``p_value`` of
        ``scipy.stats.ttest_rel(method, best)`` (negative statistic: worse than the best),
        ``p_holm`` and ``not_worse`` (``p_holm >= 0.05``).

    Notes
    -----
    - The best method (the first listed on ties) gets statistic 0 and p = 1.0; it is not
      part of the Holm family, which holds the comparisons with the others.
    - Identical score vectors give p = 1.0 (scipy would give NaN); a constant non-zero
      difference gives an infinite statistic and p = 0.0.
    - Fewer than 2 common feature counts give NaN statistic and p (no test possible);
      such a method is not ``not_worse``.
    """
    excluded = {name.lower() for name in exclude}
    keep = ~curves["method"].str.lower().isin(excluded)
    rows = []
    for (dataset, protocol, metric), family in curves[keep].groupby(
        ["dataset", "protocol", "metric"], sort=False
    ):
        series = {
            method: group.set_index("n_features")["value"]
            for method, group in family.groupby("method", sort=False)
        }
        means = {method: float(s.mean()) for method, s in series.items()}
        best = max(means, key=means.get)  # first maximal in appearance order
        results = []
        for method, s in series.items():
            if method == best:
                results.append((method, 0.0, 1.0))
                continue
            common = s.index.intersection(series[best].index)
            statistic, p_value = _ttest(
                s.loc[common].to_numpy(), series[best].loc[common].to_numpy()
            )
            results.append((method, statistic, p_value))
        others = [i for i, (method, _, _) in enumerate(results) if method != best]
        p_holm = np.ones(len(results))
        p_holm[others] = holm([results[i][2] for i in others])
        for (method, statistic, p_value), p_adj in zip(results, p_holm, strict=True):
            rows.append(
                (
                    dataset,
                    protocol,
                    metric,
                    method,
                    best,
                    means[method],
                    statistic,
                    p_value,
                    p_adj,
                    bool(p_adj >= ALPHA),
                )
            )
    return pd.DataFrame(rows, columns=list(TTEST_COLUMNS))


def _ttest(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Paired two-sided t-test of ``a`` against ``b``: (statistic, p)."""
    if len(a) < 2:
        return np.nan, np.nan
    diff = a - b
    if np.all(diff == 0):
        return 0.0, 1.0
    if np.all(diff == diff[0]):
        # A constant non-zero difference: zero variance, infinite t (scipy agrees, noisily).
        return float(np.copysign(np.inf, diff[0])), 0.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def significant(values, digits: int = 4) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (inf, NaN and 0 kept)."""
    x = np.asarray(values, dtype=float)
    finite = np.isfinite(x) & (x != 0)
    out = x.copy()
    scale = np.zeros_like(x)
    scale[finite] = digits - 1 - np.floor(np.log10(np.abs(x[finite])))
    out[finite] = np.round(x[finite] * 10.0 ** scale[finite]) / 10.0 ** scale[finite]
    return out


def round_ttests(tests: pd.DataFrame, *, digits: int = 4) -> pd.DataFrame:
    """The t-test table as written: ``statistic``, ``p_value`` and ``p_holm`` to ``digits``
    significant digits, ``mean`` (in %) to 4 decimals. ``not_worse`` was decided on the
    unrounded p-values and is kept as it is."""
    out = tests.copy()
    for column in ("statistic", "p_value", "p_holm"):
        out[column] = significant(out[column], digits)
    out["mean"] = out["mean"].astype(float).round(4)
    return out


# -- Friedman test and Nemenyi post-hoc (Demšar 2006), for the critical-difference plot ----

FRIEDMAN_COLUMNS = ("method", "mean_rank", "n_datasets")


def average_ranks(table: pd.DataFrame) -> pd.Series:
    """Mean rank of every method (columns) over the datasets (rows); rank 1 = highest score.

    Ties share the average of their ranks. Rows with a missing value are an error: the
    Friedman test needs every method on every dataset.
    """
    values = table.to_numpy(dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"ranks need at least 2 datasets x 2 methods, got shape {values.shape}")
    if np.isnan(values).any():
        bad = table.index[np.isnan(values).any(axis=1)][0]
        raise ValueError(f"ranks: dataset {bad!r} has a missing score")
    ranks = stats.rankdata(-values, axis=1, method="average")
    return pd.Series(ranks.mean(axis=0), index=table.columns, name="mean_rank")


def nemenyi_q(k: int, alpha: float = ALPHA) -> float:
    """Critical value q_alpha of the Nemenyi test for ``k`` methods (studentized range / sqrt 2).

    >>> round(nemenyi_q(10), 3), round(nemenyi_q(4), 3)
    (3.164, 2.569)
    """
    if k < 2:
        raise ValueError(f"nemenyi_q: need at least 2 methods, got {k}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def friedman_nemenyi(table: pd.DataFrame, alpha: float = ALPHA) -> dict:
    """Friedman test over methods (columns) x datasets (rows) and the Nemenyi post-hoc.

    Returns a dict with ``ranks`` (mean rank per method, best first), ``chi2`` and
    ``p_value`` (Friedman), ``iman_davenport`` and its ``p_iman_davenport`` (F with
    ``(k-1, (k-1)(N-1))`` degrees of freedom), ``cd`` = ``q_alpha sqrt(k(k+1)/(6N))``,
    ``q_alpha`` and ``pairwise``: a (k x k) DataFrame of Nemenyi p-values, from
    ``|R_i - R_j| / sqrt(k(k+1)/(6N))`` referred to the studentized range.
    """
    ranks = average_ranks(table)
    n, k = table.shape
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(ranks.to_numpy() ** 2) - k * (k + 1) ** 2 / 4.0)
    p_chi2 = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    f_stat = (n - 1) * chi2 / denom if denom > 0 else np.inf
    p_f = float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1))) if np.isfinite(f_stat) else 0.0
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    q = nemenyi_q(k, alpha)
    diff = np.abs(ranks.to_numpy()[:, None] - ranks.to_numpy()[None, :]) / se
    pairwise = pd.DataFrame(
        stats.studentized_range.sf(diff * np.sqrt(2.0), k, np.inf),
        index=ranks.index,
        columns=ranks.index,
    )
    return {
        "ranks": ranks.sort_values(kind="stable"),
        "chi2": float(chi2),
        "p_value": p_chi2,
        "iman_davenport": float(f_stat),
        "p_iman_davenport": p_f,
        "q_alpha": q,
        "cd": float(q * se),
        "alpha": alpha,
        "n_datasets": n,
        "pairwise": pairwise,
    }
