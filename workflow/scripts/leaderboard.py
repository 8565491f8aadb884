"""Leaderboard over datasets: ranking tables, Friedman test, critical-difference diagrams."""

import matplotlib.pyplot as plt
import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table, write_text
from ufsbench.leaderboard import markdown, ranking
from ufsbench.plots import plot_cd_diagram, save_figure

log = joblog.setup(snakemake.log[0])
summary = pd.read_csv(snakemake.input[0], sep="\t")
p = snakemake.params
tables = []
figures = iter(zip(snakemake.output.figures, snakemake.output.pdfs, strict=True))
for protocol in p.protocols:
    for metric in p.metrics:
        table, result = ranking(summary, protocol, metric, alpha=p.alpha)
        tables.append(table)
        png, pdf = next(figures)
        if result is None:
            message = f"{metric}, {protocol}: the test needs >= 2 datasets and >= 2 methods"
            log.warning(message)
            fig, ax = plt.subplots(figsize=(6, 1.5))
            ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=9)
            ax.set_axis_off()
        else:
            log.info(
                "%s %s: Friedman chi2 %.3f p %.3g; CD %.3f",
                metric, protocol, result["chi2"], result["p_value"], result["cd"],
            )  # fmt: skip
            title = (
                f"{metric}, {protocol} protocol, {result['n_datasets']} datasets: "
                f"Friedman p = {result['p_value']:.3g}, CD = {result['cd']:.2f}"
            )
            fig = plot_cd_diagram(result["ranks"], result["cd"], title=title)
        save_figure(fig, png, pdf)
write_table(snakemake.output.tsv, pd.concat(tables, ignore_index=True))
write_text(snakemake.output.md, markdown(tables))
