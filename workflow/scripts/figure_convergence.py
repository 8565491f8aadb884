"""Convergence curves of the iterative methods on one dataset."""

import pandas as pd

from ufsbench import joblog
from ufsbench.plots import plot_convergence, save_figure

joblog.setup(snakemake.log[0])
traces = pd.read_csv(snakemake.input[0], sep="\t")
fig = plot_convergence(traces, snakemake.params.dataset)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
