"""The ablation figure: each variant's score against the number of selected features."""

import pandas as pd

from ufsbench import joblog
from ufsbench.papers.figures import plot_ablation
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0])
curves = pd.read_csv(snakemake.input[0], sep="\t")
fig = plot_ablation(
    curves, snakemake.params.dataset, snakemake.params.methods, labels=snakemake.params.labels
)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
log.info("ablation figure of %s on %s", snakemake.params.methods, snakemake.params.dataset)
