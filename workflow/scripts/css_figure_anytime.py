"""Figure 2 of the POCSS paper: POCSS's anytime error ratio against Greedy and Iter FS."""

import pandas as pd

from ufsbench import joblog
from ufsbench.css.figures import plot_anytime
from ufsbench.plots import save_figure

joblog.setup(snakemake.log[0])
traces = pd.read_csv(snakemake.input.anytime, sep="\t")
runs = pd.read_csv(snakemake.input.runs, sep="\t")
fig = plot_anytime(traces, runs, snakemake.wildcards.dataset, snakemake.params.k)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
