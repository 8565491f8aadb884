"""Friedman test, Nemenyi post-hoc and the critical-difference diagram (Fig. 7) on ACC."""

import matplotlib.pyplot as plt
import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.papers.blufs import PAPER_NAMES
from ufsbench.plots import plot_cd_diagram, save_figure
from ufsbench.stats import friedman_nemenyi

log = joblog.setup(snakemake.log[0])
cells = pd.read_csv(snakemake.input[0], sep="\t")
acc = cells[(cells["metric"] == "acc") & ~cells["method"].isin(["allfea", "random"])]
table = acc.pivot(index="dataset", columns="method", values="mean").dropna(axis=1)
if min(table.shape) < 2:
    # A run restricted to one dataset (or one method) has nothing to rank: say so.
    message = f"Friedman test needs >= 2 datasets and >= 2 methods; this run has {table.shape}"
    log.warning(message)
    write_table(snakemake.output.tsv, pd.DataFrame({"method": table.columns, "mean_rank": None}))
    write_table(snakemake.output.pairwise, pd.DataFrame({"method": table.columns}))
    fig, ax = plt.subplots(figsize=(6, 1.5))
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=9)
    ax.set_axis_off()
    save_figure(fig, snakemake.output.png, snakemake.output.pdf)
else:
    result = friedman_nemenyi(table, alpha=snakemake.params.alpha)
    log.info(
        "Friedman chi2 %.3f p %.3g; CD %.3f (k=%d, N=%d)",
        result["chi2"], result["p_value"], result["cd"], table.shape[1], table.shape[0],
    )  # fmt: skip
    ranks = result["ranks"].rename("mean_rank").rename_axis("method").reset_index()
    for key in ("chi2", "p_value", "iman_davenport", "p_iman_davenport", "q_alpha", "cd",
                "alpha", "n_datasets"):  # fmt: skip
        ranks[key] = result[key]
    write_table(snakemake.output.tsv, ranks)
    write_table(snakemake.output.pairwise, result["pairwise"].rename_axis("method").reset_index())
    title = (
        f"Nemenyi test on ACC, {table.shape[0]} datasets: Friedman p = {result['p_value']:.3g}, "
        f"CD = {result['cd']:.2f}"
    )
    fig = plot_cd_diagram(result["ranks"], result["cd"], title=title, labels=PAPER_NAMES)
    save_figure(fig, snakemake.output.png, snakemake.output.pdf)
