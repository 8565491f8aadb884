"""From tidy per-run scores to per-protocol curves, summary tables and rendered tables.

Two protocols choose a hyper-parameter setting per (dataset, method):

``"oracle"``
    For every feature count and metric separately, the setting with the best mean score
    among the grid (``in_grid``) settings. This uses the ground-truth labels of the very
    samples being clustered, as the LSDCL and BLUFS papers do: optimistic, not a
    deployable model-selection procedure.
``"default"``
    The method's default setting (``is_default``); no label is used.

Scores are fractions in the input and percentages (×100) in every output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

METRICS = ("acc", "nmi_max", "nmi_sqrt")
PROTOCOLS = ("oracle", "default")
SCORE_COLUMNS = (
    "dataset",
    "method",
    "params",
    "in_grid",
    "is_default",
    "n_features",
    "repeat",
    *METRICS,
)
CURVE_COLUMNS = ("dataset", "method", "protocol", "metric", "n_features", "value", "params")
SUMMARY_COLUMNS = ("dataset", "method", "protocol", "metric", "mean", "std", "n_counts")

_SETTING = ["dataset", "method", "params"]
# Methods the t-tests leave out (``ufsbench.stats.paired_ttests``): AllFea keeps every
# feature, a reference line rather than a competitor. The tables' bold skips them too.
NOT_COMPARED = ("allfea",)
METRIC_NAMES = {
    "acc": "ACC",
    "nmi_max": "NMI, MI / max(H(Y), H(C))",
    "nmi_sqrt": "NMI, MI / sqrt(H(Y) H(C))",
}


TIMING_COLUMNS = ("select_seconds",)


def split_timings(scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(scores, timings)``: the scores without wall-clock columns, and those apart.

    Timings differ between two runs of the same configuration (machine load, ``--cores``),
    scores do not; kept apart, the score tables of two runs are byte-identical.
    ``timings`` has one row per (``dataset``, ``method``, ``params``, seconds).
    """
    timing = [c for c in TIMING_COLUMNS if c in scores.columns]
    timings = scores[[*_SETTING, *timing]].drop_duplicates(ignore_index=True)
    return scores.drop(columns=timing), timings


def curves(scores: pd.DataFrame, protocols=PROTOCOLS) -> pd.DataFrame:
    """Score of every (dataset, method) at every feature count under each protocol.

    Parameters
    ----------
    scores : pandas.DataFrame
        Tidy per-run scores with columns ``dataset``, ``method``, ``params`` (canonical
        id of a hyper-parameter setting), ``in_grid``, ``is_default``, ``n_features``,
        ``repeat``, ``acc``, ``nmi_max``, ``nmi_sqrt`` (other columns are ignored).
    protocols : sequence of {"oracle", "default"}, default=("oracle", "default")

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``protocol``, ``metric``, ``n_features``,
        ``value`` (mean over repeats, in %) and ``params`` (the setting chosen).
        Datasets and methods keep their order of first appearance; feature counts
        ascend. Among equally good oracle settings the first one listed wins.

    Notes
    -----
    Raises ``ValueError`` for missing columns, an unknown protocol, a (dataset, method)
    without ``in_grid`` settings (oracle) or without exactly one ``is_default`` setting
    (default).
    """
    missing = [c for c in SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"scores: missing columns {', '.join(missing)}")
    protocols = tuple(protocols)
    unknown = [p for p in protocols if p not in PROTOCOLS]
    if unknown:
        known = ", ".join(map(repr, PROTOCOLS))
        raise ValueError(f"unknown protocol {unknown[0]!r} (known: {known})")

    # Mean over repeats of every (setting, m), in long form: one row per metric.
    per_setting = (
        scores.groupby([*_SETTING, "n_features"], sort=False)[list(METRICS)].mean() * 100.0
    ).reset_index()
    flags = scores.groupby(_SETTING, sort=False)[["in_grid", "is_default"]].first().reset_index()
    flags["in_grid"] = flags["in_grid"].astype(bool)
    flags["is_default"] = flags["is_default"].astype(bool)
    long = per_setting.melt(
        id_vars=[*_SETTING, "n_features"],
        value_vars=list(METRICS),
        var_name="metric",
        value_name="value",
    ).merge(flags, on=_SETTING, how="left", sort=False)

    parts = []
    for protocol in protocols:
        if protocol == "oracle":
            parts.append(_oracle(long, flags))
        else:
            parts.append(_default(long, flags))
    out = pd.concat(parts, ignore_index=True)
    return _in_order(out, scores, protocols)[list(CURVE_COLUMNS)]


def _oracle(long: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    has_grid = flags.groupby(["dataset", "method"], sort=False)["in_grid"].any()
    if not has_grid.all():
        dataset, method = has_grid.index[~has_grid.to_numpy()][0]
        raise ValueError(
            f"oracle protocol: method {method!r} on dataset {dataset!r} has no in_grid setting"
        )
    grid = long[long["in_grid"]]
    # idxmax returns the first maximal row: the first setting listed wins ties.
    best = grid.groupby(["dataset", "method", "metric", "n_features"], sort=False)["value"].idxmax()
    chosen = grid.loc[best.to_numpy()].copy()
    chosen["protocol"] = "oracle"
    return chosen


def _default(long: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    n_default = flags.groupby(["dataset", "method"], sort=False)["is_default"].sum()
    bad = n_default[n_default != 1]
    if len(bad):
        (dataset, method), count = bad.index[0], int(bad.iloc[0])
        raise ValueError(
            f"default protocol: method {method!r} on dataset {dataset!r} has {count} "
            f"is_default settings, expected exactly 1"
        )
    chosen = long[long["is_default"]].copy()
    chosen["protocol"] = "default"
    return chosen


def _in_order(frame: pd.DataFrame, scores: pd.DataFrame, protocols) -> pd.DataFrame:
    """Sort by first appearance of dataset and method, then protocol, metric, m."""
    keys = {
        "dataset": list(pd.unique(scores["dataset"])),
        "method": list(pd.unique(scores["method"])),
        "protocol": list(protocols),
        "metric": list(METRICS),
    }
    frame = frame.copy()
    sort_cols = []
    for column, order in keys.items():
        rank = {value: i for i, value in enumerate(order)}
        frame[f"_{column}"] = frame[column].map(rank)
        sort_cols.append(f"_{column}")
    frame = frame.sort_values([*sort_cols, "n_features"], kind="stable")
    return frame.drop(columns=sort_cols).reset_index(drop=True)


def repeat_spread(curves: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """``curves`` with ``std``: the spread over k-means repeats of each curve point.

    A point of a curve is the mean over repeats of the chosen setting (``params``) at one
    feature count; ``std`` (in %, ddof=1; NaN for one repeat) is those repeats' standard
    deviation, the error band of the curves figure.
    """
    per_repeat = scores.melt(
        id_vars=[*_SETTING, "n_features", "repeat"],
        value_vars=list(METRICS),
        var_name="metric",
        value_name="score",
    )
    std = (
        per_repeat.groupby([*_SETTING, "n_features", "metric"], sort=False)["score"].std(ddof=1)
        * 100.0
    ).rename("std")
    return curves.merge(
        std.reset_index(), on=[*_SETTING, "n_features", "metric"], how="left", sort=False
    )


def summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread of every curve over its feature-count grid.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``protocol``, ``metric``, ``mean`` (over the
        grid), ``std`` (across the grid, ddof=1; NaN for a single count, e.g. AllFea
        evaluated at ``m = d`` only) and ``n_counts``; in the order of ``curves``.
    """
    grouped = curves.groupby(["dataset", "method", "protocol", "metric"], sort=False)["value"]
    out = grouped.agg(mean="mean", std=lambda v: v.std(ddof=1), n_counts="count")
    out = out.reset_index()
    out["n_counts"] = out["n_counts"].astype(int)
    return out[list(SUMMARY_COLUMNS)]


def render_summary_markdown(
    summary: pd.DataFrame, metrics=METRICS, *, digits: int = 2, repeats: int | None = None
) -> str:
    """``summary.md``: a legend, then :func:`render_markdown`'s tables of every metric."""
    counts = summary.groupby("dataset", sort=False)["n_counts"].max()
    per_run = f"{repeats} k-means runs" if repeats else "the k-means runs"
    legend = (
        "# Summary: clustering scores of the selected features (%)\n\n"
        "A cell is **mean ± std over the feature-count grid**: each method is scored at "
        f"every feature count of the dataset's grid ({counts.min()} to {counts.max()} counts "
        "per dataset), "
        f"each score the mean of {per_run}, and the cell gives the mean and the standard "
        "deviation (ddof = 1) of those per-count scores. The ± is therefore how much the "
        "score moves with the number of features, not a confidence interval. A cell "
        "without ± has one count (AllFea, all features). "
        "**Bold**: the largest mean of the row among the methods the t-tests compare "
        f"(`ttest_<metric>.tsv`; {', '.join(NOT_COMPARED)} is not compared), every tied "
        "one. Whether the others are significantly worse is in the t-test tables "
        "(`not_worse`). Protocols: `oracle` picks the best setting per count with the "
        "labels (optimistic, as the papers do); `default` uses the method's default "
        "setting.\n\n"
    )
    blocks = [
        f"## {METRIC_NAMES.get(metric, metric)}\n\n"
        + render_markdown(summary, metric, digits=digits)
        for metric in metrics
        if (summary["metric"] == metric).any()
    ]
    return legend + "\n".join(blocks)


def render_markdown(summary: pd.DataFrame, metric: str = "acc", *, digits: int = 2) -> str:
    """Markdown tables of one metric: one per protocol, datasets × methods, best in bold.

    A cell reads ``mean ± std`` over the feature-count grid (only the mean when the std is
    undefined); ``—`` marks a missing cell. The largest mean of each row among the
    methods the t-tests compare (all but :data:`NOT_COMPARED`) is bold, every tied one.
    """
    blocks = []
    for protocol, table in _tables(summary, metric):
        methods = list(table.columns)
        lines = [
            f"**{metric}, {protocol} protocol** (%)",
            "",
            "| dataset | " + " | ".join(methods) + " |",
            "|---|" + "---|" * len(methods),
        ]
        for dataset, row in table.iterrows():
            cells = [_cell(cell, best, digits, "**{}**", " ± ", "—") for cell, best in row]
            lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def render_latex(summary: pd.DataFrame, metric: str = "acc", *, digits: int = 2) -> str:
    r"""LaTeX ``tabular`` environments (booktabs) of one metric, one per protocol.

    Same layout as :func:`render_markdown`; bold is ``\textbf{...}``.
    """
    blocks = []
    for protocol, table in _tables(summary, metric):
        methods = list(table.columns)
        lines = [
            f"% {_latex_escape(metric)}, {protocol} protocol (%)",
            r"\begin{tabular}{l" + "c" * len(methods) + "}",
            r"\toprule",
            "Dataset & " + " & ".join(_latex_escape(m) for m in methods) + r" \\",
            r"\midrule",
        ]
        for dataset, row in table.iterrows():
            cells = [
                _cell(cell, best, digits, r"\textbf{{{}}}", r" $\pm$ ", "--") for cell, best in row
            ]
            lines.append(_latex_escape(str(dataset)) + " & " + " & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _tables(summary: pd.DataFrame, metric: str):
    """Yield (protocol, table) where a table cell is ((mean, std), is_best) or None."""
    if metric not in METRICS:
        known = ", ".join(map(repr, METRICS))
        raise ValueError(f"unknown metric {metric!r} (known: {known})")
    rows = summary[summary["metric"] == metric]
    if rows.empty:
        raise ValueError(f"summary has no rows for metric {metric!r}")
    datasets = list(pd.unique(rows["dataset"]))
    methods = list(pd.unique(rows["method"]))
    for protocol in pd.unique(rows["protocol"]):
        part = rows[rows["protocol"] == protocol]
        means = part.pivot(index="dataset", columns="method", values="mean")
        stds = part.pivot(index="dataset", columns="method", values="std")
        means = means.reindex(index=datasets, columns=methods)
        stds = stds.reindex(index=datasets, columns=methods)
        compared = [m for m in methods if m.lower() not in NOT_COMPARED]
        best = means[compared].max(axis=1) if compared else means.max(axis=1)
        table = pd.DataFrame(index=datasets, columns=methods, dtype=object)
        for dataset in datasets:
            for method in methods:
                mean = means.at[dataset, method]
                if np.isnan(mean):
                    table.at[dataset, method] = (None, False)
                else:
                    cell = (mean, stds.at[dataset, method])
                    tested = method in compared or not compared
                    table.at[dataset, method] = (cell, tested and bool(mean == best[dataset]))
        yield protocol, table


def _cell(cell, best: bool, digits: int, bold: str, pm: str, missing: str) -> str:
    if cell is None:
        return missing
    mean, std = cell
    text = f"{mean:.{digits}f}"
    if not np.isnan(std):
        text += f"{pm}{std:.{digits}f}"
    return bold.format(text) if best else text


_LATEX_SPECIAL = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
    }
)


def _latex_escape(text: str) -> str:
    return text.translate(_LATEX_SPECIAL)
