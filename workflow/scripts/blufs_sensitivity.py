"""BLUFS paper Fig. 9: ACC over (alpha, beta) and (mu, lam) at the best other values."""

import pandas as pd

from ufsbench import joblog
from ufsbench.papers import blufs_figures as bf
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0], snakemake.threads)
dataset = snakemake.wildcards.dataset
scores = pd.read_csv(snakemake.input[0], sep="\t")
grids, s = bf.sensitivity_grids(scores, dataset)
fig = bf.plot_sensitivity(grids, dataset, s)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
