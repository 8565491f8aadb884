"""The BLUFS paper's outputs that span datasets, rendered from their per-dataset rows.

Tables II, III, V, VII and VIII lay datasets out side by side, and the Friedman test
with its critical-difference diagram (Fig. 7) ranks the methods over all of them. The
workflow's table jobs render them here from the run's cells, and the publication of
runs over disjoint dataset subsets (:mod:`ufsbench.tools.merge_blufs`) renders them here
again from the merged cells: one renderer, so a merged publication equals one run over
all the datasets.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ..plots import plot_cd_diagram
from ..stats import friedman_nemenyi
from .blufs import PAPER_NAMES, markdown, wide_table

# Columns of the per-count k-NN winners (Table VII, blufs_table7.tsv).
KNN_COLUMNS = ("dataset", "method", "n_features", "mean", "std", "metric", "params")


def table2_markdown(cells: pd.DataFrame) -> str:
    """Table II: the oracle ACC cells (:func:`~ufsbench.papers.blufs.oracle_cells`)."""
    title = "Table II: k-means ACC %, oracle over settings and counts (count)"
    return markdown(wide_table(cells, "acc"), title)


def table3_markdown(cells: pd.DataFrame) -> str:
    """Table III: the oracle NMI cells (max-normalised)."""
    title = "Table III: k-means NMI (max-normalised) %, oracle (count)"
    return markdown(wide_table(cells, "nmi_max"), title)


def table5_markdown(ablation: pd.DataFrame) -> str:
    """Table V: the oracle cells of the ablation cases beside BLUFS (ACC, then NMI)."""
    if ablation.empty:
        return "No ablation configured (config blufs.ablation).\n"
    title = "Table V: ablation, {} %, oracle (count)"
    text = markdown(wide_table(ablation, "acc"), title.format("ACC"))
    return text + "\n" + markdown(wide_table(ablation, "nmi_max"), title.format("NMI"))


def knn_winners(knn: pd.DataFrame) -> pd.DataFrame:
    """Table VII's cells: per (dataset, method) the feature count with the best mean k-NN
    accuracy over the splits (the smaller count on ties), in %."""
    per_count = knn.groupby(["dataset", "method", "n_features"], sort=False)["accuracy"]
    cells = per_count.agg(mean="mean", std=lambda v: v.std(ddof=1)).reset_index()
    ascending = cells.sort_values("n_features", kind="stable")  # idxmax: the first maximum
    winners = ascending.groupby(["dataset", "method"], sort=False)["mean"].idxmax()
    best = cells.loc[sorted(winners)]  # in the input's order of datasets and methods
    return best.assign(metric="knn_acc", params="", mean=100 * best["mean"], std=100 * best["std"])


def table7_markdown(winners: pd.DataFrame, knn: dict) -> str:
    """Table VII from :func:`knn_winners`; ``knn`` is the config's ``blufs.knn``."""
    title = (
        f"Table VII: {knn['k']}-NN accuracy %, {knn['splits']} stratified splits, "
        "oracle over counts (count)"
    )
    return markdown(wide_table(winners, "knn_acc"), title)


def table8(ours: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """Our seconds per selection call with the paper's Table VIII beside them (``paper``)."""
    ref = reference[reference["table"] == "VIII"][["dataset", "method", "mean"]]
    return ours.merge(ref.rename(columns={"mean": "paper"}), on=["dataset", "method"], how="left")


def _seconds_cell(row) -> str:
    """``wall [CPU] (paper)``; a file from before CPU seconds were kept shows wall only."""
    text = f"{row.mean_seconds:.2f}"
    if pd.notna(row.get("mean_cpu_seconds")):
        text += f" [{row.mean_cpu_seconds:.2f}]"
    return text + (f" ({row.paper:.2f})" if pd.notna(row.paper) else "")


def table8_markdown(table: pd.DataFrame) -> str:
    """Table VIII (:func:`table8`): one row per dataset, one column per method."""
    cells = table.assign(cell=table.apply(_seconds_cell, axis=1)).pivot(
        index="dataset", columns="method", values="cell"
    )
    cells = cells.reindex(index=table["dataset"].unique(), columns=table["method"].unique())
    lines = [
        "**Table VIII: seconds per selection call (ours, mean of runs: wall [CPU]; paper in "
        "brackets)**",
        "",
        "| dataset | " + " | ".join(PAPER_NAMES.get(m, m) for m in cells.columns) + " |",
        "|---|" + "---|" * len(cells.columns),
    ]
    for dataset, row in cells.iterrows():  # a method absent from a dataset shows "-"
        lines.append(f"| {dataset} | " + " | ".join(row.fillna("-")) + " |")
    if "load_average" in table and table["load_average"].notna().any():
        load = table["load_average"]
        lines += [
            "",
            f"Load average during the runs {load.min():.1f}-{load.max():.1f} on "
            f"{int(table['cpus'].max())} CPUs: wall seconds grow with the load, CPU seconds "
            "of a one-thread run do not.",
        ]
    return "\n".join(lines) + "\n"


def friedman_outputs(cells: pd.DataFrame, alpha: float):
    """Fig. 7: the Friedman test and Nemenyi post-hoc on the ACC cells of the selection
    methods (AllFea and the random control left out).

    Returns ``(ranks, pairwise, figure, message)``: the mean ranks with the test's
    statistics in every row, the pairwise Nemenyi p-values, the critical-difference
    figure, and a log line. With fewer than two datasets or methods nothing can be
    ranked: the tables list the methods only and the figure says why.
    """
    acc = cells[(cells["metric"] == "acc") & ~cells["method"].isin(["allfea", "random"])]
    table = acc.pivot(index="dataset", columns="method", values="mean").dropna(axis=1)
    if min(table.shape) < 2:
        message = f"Friedman test needs >= 2 datasets and >= 2 methods; this run has {table.shape}"
        fig, ax = plt.subplots(figsize=(6, 1.5))
        ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=9)
        ax.set_axis_off()
        methods = pd.DataFrame({"method": table.columns})
        return methods.assign(mean_rank=None), methods, fig, message
    result = friedman_nemenyi(table, alpha=alpha)
    ranks = result["ranks"].rename("mean_rank").rename_axis("method").reset_index()
    for key in ("chi2", "p_value", "iman_davenport", "p_iman_davenport", "q_alpha", "cd",
                "alpha", "n_datasets"):  # fmt: skip
        ranks[key] = result[key]
    pairwise = result["pairwise"].rename_axis("method").reset_index()
    title = (
        f"Nemenyi test on ACC, {table.shape[0]} datasets: Friedman p = {result['p_value']:.3g}, "
        f"CD = {result['cd']:.2f}"
    )
    fig = plot_cd_diagram(result["ranks"], result["cd"], title=title, labels=PAPER_NAMES)
    message = (
        f"Friedman chi2 {result['chi2']:.3f} p {result['p_value']:.3g}; CD {result['cd']:.3f} "
        f"(k={table.shape[1]}, N={table.shape[0]})"
    )
    return ranks, pairwise, fig, message
