"""Figure 1 of the POCSS paper: error ratio against k on one dataset."""

import pandas as pd

from ufsbench import joblog
from ufsbench.css.figures import plot_error_vs_k
from ufsbench.plots import save_figure

joblog.setup(snakemake.log[0])
summary = pd.read_csv(snakemake.input[0], sep="\t")
summary = summary[summary["k"].isin(snakemake.params.ks)]
fig = plot_error_vs_k(summary, snakemake.wildcards.dataset)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
