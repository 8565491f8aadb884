"""A leaderboard over datasets: mean ranks, the Friedman test and the Nemenyi post-hoc.

Generic form of the BLUFS paper's Fig. 7 machinery (:func:`ufsbench.stats.friedman_nemenyi`,
:func:`ufsbench.plots.plot_cd_diagram`) for any run: from the run's ``summary.tsv``
(one mean score per dataset, method, protocol and metric), each protocol and metric gets
a ranking table (mean rank over datasets, best first, with every dataset's score) and
the test over datasets. ``allfea`` (no selection) is left out; the random control stays
in, so a method that does not rank above it selects no better than chance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import ALPHA, friedman_nemenyi

EXCLUDED = ("allfea",)
TEST_COLUMNS = ("chi2", "p_value", "iman_davenport", "p_iman_davenport", "q_alpha", "cd")


def score_table(summary: pd.DataFrame, protocol: str, metric: str, exclude=EXCLUDED):
    """Datasets (rows) x methods (columns) of mean scores; methods missing a dataset
    are dropped (the Friedman test needs every method on every dataset)."""
    rows = summary[
        (summary["protocol"] == protocol)
        & (summary["metric"] == metric)
        & ~summary["method"].isin(exclude)
    ]
    table = rows.pivot(index="dataset", columns="method", values="mean")
    order = list(dict.fromkeys(rows["method"]))
    return table[[m for m in order if m in table.columns]].dropna(axis=1)


def ranking(summary: pd.DataFrame, protocol: str, metric: str, *, alpha: float = ALPHA):
    """(ranking table, test result or None) of one protocol and metric.

    The table has one row per method, best mean rank first: ``rank`` (1 = highest score,
    ties averaged), ``mean_score`` over datasets, one column per dataset, and the test's
    ``chi2``, ``p_value``, ... ``cd`` (NaN when fewer than 2 datasets or methods).
    """
    table = score_table(summary, protocol, metric)
    if min(table.shape) < 2:
        frame = pd.DataFrame({"method": list(table.columns)})
        frame["rank"] = np.nan
        result = None
    else:
        result = friedman_nemenyi(table, alpha=alpha)
        frame = result["ranks"].rename("rank").rename_axis("method").reset_index()
    frame.insert(0, "metric", metric)
    frame.insert(0, "protocol", protocol)
    frame["mean_score"] = frame["method"].map(table.mean(axis=0))
    for dataset in table.index:
        frame[dataset] = frame["method"].map(table.loc[dataset])
    for key in TEST_COLUMNS:
        frame[key] = np.nan if result is None else result[key]
    frame["n_datasets"] = table.shape[0]
    return frame, result


def markdown(tables: list[pd.DataFrame]) -> str:
    """The ranking tables as Markdown, one section per protocol and metric."""
    lines = [
        "# Leaderboard: mean rank over datasets (1 = best)",
        "",
        "Each dataset's score is the method's mean over the feature-count grid "
        "(`summary.tsv`); ranks are per dataset, averaged. Friedman test over datasets; "
        "methods closer than the critical difference (CD, Nemenyi) are not significantly "
        "different. `random` is the budget-matched random control.",
    ]
    for table in tables:
        protocol, metric = table["protocol"].iloc[0], table["metric"].iloc[0]
        datasets = [c for c in table.columns if c not in _FIXED]
        lines += ["", f"## {metric}, {protocol} protocol", ""]
        first = table.iloc[0]
        if np.isfinite(first["cd"]):
            lines.append(
                f"Friedman p = {first['p_value']:.3g} over {int(first['n_datasets'])} "
                f"datasets; CD = {first['cd']:.2f}."
            )
            lines.append("")
        lines.append("| rank | method | mean rank | mean | " + " | ".join(datasets) + " |")
        lines.append("|---|---|---|---|" + "---|" * len(datasets))
        for i, (_, row) in enumerate(table.iterrows(), start=1):
            cells = [_fmt(row[key]) for key in ("rank", "mean_score", *datasets)]
            lines.append(f"| {i} | {row['method']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


_FIXED = {"protocol", "metric", "method", "rank", "mean_score", "n_datasets", *TEST_COLUMNS}


def _fmt(value) -> str:
    return "" if value is None or not np.isfinite(value) else f"{value:.2f}"
