"""Tables laid out as the papers print them: mean ± std (p) per dataset and method.

The LSDCL protocol (spec section 6.5/6.6, FSASL ``ms2tex.m``): per dataset and metric the
best method is the one with the highest mean over the feature-count grid; every other
method is compared with it by a paired two-sided t-test over the grid (unadjusted p,
as printed; the best gets p = 1.00). A cell is bold when its p >= 0.05. AllFea has a mean
only and takes no part in the tests. The last row is the plain mean of each column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import ALPHA, paired_ttests

TABLE_COLUMNS = ("dataset", "method", "mean", "std", "p", "bold")


def paper_table(
    curves: pd.DataFrame,
    metric: str,
    *,
    methods=None,
    protocol: str = "oracle",
    no_test=("allfea",),
) -> pd.DataFrame:
    """Tidy table of one metric under one protocol, with paired t-tests vs the best.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`ufsbench.aggregate.curves` output.
    metric : str
        One of our metrics (``acc``, ``nmi_max``, ``nmi_sqrt``).
    methods : sequence of str, optional
        The table's columns in order (those absent from ``curves`` are skipped); all
        methods of ``curves`` by default. The t-tests run among these methods only.
    protocol : str, default="oracle"
    no_test : sequence of str
        Methods reported without std and p (AllFea).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``mean``, ``std``, ``p``, ``bold``: one row per
        (dataset, method) in dataset order then method order, and one ``Average`` row per
        method (mean of its dataset means, over the datasets where it ran).
    """
    part = curves[(curves["protocol"] == protocol) & (curves["metric"] == metric)]
    if part.empty:
        raise ValueError(f"paper_table: no curves for metric {metric!r}, protocol {protocol!r}")
    present = list(pd.unique(part["method"]))
    methods = present if methods is None else [m for m in methods if m in present]
    if not methods:
        raise ValueError("paper_table: none of the requested methods has curves")
    part = part[part["method"].isin(methods)]
    datasets = list(pd.unique(part["dataset"]))
    tests = paired_ttests(part, exclude=no_test)
    p_of = {(r.dataset, r.method): r.p_value for r in tests.itertuples()}
    rows = []
    for dataset in datasets:
        for method in methods:
            values = part[(part["dataset"] == dataset) & (part["method"] == method)]["value"]
            if values.empty:
                continue
            mean = float(values.mean())
            if method in no_test:
                rows.append((dataset, method, mean, np.nan, np.nan, False))
                continue
            std = float(values.std(ddof=1)) if len(values) > 1 else np.nan
            p = float(p_of.get((dataset, method), np.nan))
            rows.append((dataset, method, mean, std, p, bool(p >= ALPHA)))
    return with_averages(pd.DataFrame(rows, columns=list(TABLE_COLUMNS)), methods, no_test)


def with_averages(table: pd.DataFrame, methods, no_test=("allfea",)) -> pd.DataFrame:
    """The dataset rows of a :func:`paper_table` followed by one ``Average`` row per method.

    An average is the mean of the method's dataset means over the datasets where it ran;
    the best average among the tested methods is bold. Used again when the tables of runs
    over disjoint dataset subsets are merged (:mod:`ufsbench.papers.merge`).
    """
    table = table[table["dataset"] != "Average"]
    averages = table.groupby("method", sort=False)["mean"].mean()
    best = averages.drop([m for m in no_test if m in averages.index]).max()
    rows = [
        ("Average", method, float(averages[method]), np.nan, np.nan, bool(averages[method] == best))
        for method in methods
        if method in averages.index
    ]
    return pd.concat(
        [table, pd.DataFrame(rows, columns=list(TABLE_COLUMNS))], ignore_index=True
    ).astype({"bold": bool})


def table_title(metric: str, protocol: str) -> str:
    """The caption of a rendered paper table."""
    return (
        f"{metric} (%), {protocol} protocol: mean ± std over the feature grid"
        " (paired t-test p vs the best)"
    )


def _wide(table: pd.DataFrame, digits: int, pm: str, bold: str, missing: str, p_fmt: str):
    datasets = list(pd.unique(table["dataset"]))
    methods = list(pd.unique(table["method"]))
    cells = {}
    for row in table.itertuples():
        text = f"{row.mean:.{digits}f}"
        if not np.isnan(row.std):
            text += f"{pm}{row.std:.{digits}f}"
        if not np.isnan(row.p):
            text += p_fmt.format(row.p)
        cells[(row.dataset, row.method)] = bold.format(text) if row.bold else text
    return datasets, methods, [[cells.get((d, m), missing) for m in methods] for d in datasets]


def render_markdown(table: pd.DataFrame, title: str, *, labels=None, digits: int = 2) -> str:
    """Markdown: rows datasets (and Average), columns methods; bold as the paper."""
    labels = labels or {}
    datasets, methods, grid = _wide(table, digits, " ± ", "**{}**", "—", " (p={:.2f})")
    lines = [
        f"**{title}**",
        "",
        "| dataset | " + " | ".join(labels.get(m, m) for m in methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    for dataset, cells in zip(datasets, grid, strict=True):
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_latex(table: pd.DataFrame, title: str, *, labels=None, digits: int = 2) -> str:
    r"""LaTeX (booktabs) in the paper's cell layout ``mean \\ ± std \\ p``."""
    labels = labels or {}
    datasets, methods, grid = _wide(table, digits, r" $\pm$ ", r"\textbf{{{}}}", "--", " ({:.2f})")

    def esc(text):
        return str(text).replace("_", r"\_").replace("%", r"\%").replace("&", r"\&")

    lines = [
        f"% {esc(title)}",
        r"\begin{tabular}{l" + "c" * len(methods) + "}",
        r"\toprule",
        "Data set & " + " & ".join(esc(labels.get(m, m)) for m in methods) + r" \\",
        r"\midrule",
    ]
    for dataset, cells in zip(datasets, grid, strict=True):
        if dataset == "Average":
            lines.append(r"\midrule")
        lines.append(esc(dataset) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
