"""Sensitivity heat-maps: score against each hyper-parameter and the feature count."""

import pandas as pd

from ufsbench import joblog
from ufsbench.papers.figures import best_average_setting, plot_sensitivity, sensitivity
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0])
scores = pd.read_csv(snakemake.input[0], sep="\t")
dataset, method = snakemake.params.dataset, snakemake.params.method
log.info("best-average setting: %s", best_average_setting(scores, dataset, method))
tables = {p: sensitivity(scores, dataset, method, p) for p in snakemake.params.params}
for param, table in tables.items():
    log.info("%s:\n%s", param, table.round(2).to_string())
save_figure(plot_sensitivity(tables, dataset), snakemake.output.png, snakemake.output.pdf)
