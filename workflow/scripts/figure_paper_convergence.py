"""Objective traces of one method at its best-average setting, one panel per dataset."""

import pandas as pd

from ufsbench import joblog
from ufsbench.papers.figures import best_traces, monotone_share, plot_traces, trace_panels
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0])
traces = pd.read_csv(snakemake.input.traces, sep="\t")
scores = pd.read_csv(snakemake.input.scores, sep="\t")
method = snakemake.params.method
panels = trace_panels(best_traces(traces, scores, method, snakemake.params.datasets))
for dataset, (setting, trace) in panels.items():
    log.info(
        "%s [%s]: %d iterations, non-increasing steps %.3f",
        dataset,
        setting,
        len(trace),
        monotone_share(trace["objective"]),
    )
figure = plot_traces(panels, method, parameters=snakemake.params.parameters)
save_figure(figure, snakemake.output.png, snakemake.output.pdf)
