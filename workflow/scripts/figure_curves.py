"""ACC and NMI against the number of selected features: one row per method, with the
spread over the k-means repeats as a band."""

import pandas as pd

from ufsbench import joblog
from ufsbench.aggregate import repeat_spread
from ufsbench.plots import plot_curves, save_figure

joblog.setup(snakemake.log[0])
curves = pd.read_csv(snakemake.input.curves, sep="\t")
scores = pd.read_csv(snakemake.input.scores, sep="\t")
dataset = snakemake.params.dataset
curves = curves[curves["dataset"] == dataset]
fig = plot_curves(repeat_spread(curves, scores[scores["dataset"] == dataset]), dataset)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
