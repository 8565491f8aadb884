"""BLUFS paper Fig. 11: BLUFS objective per sweep at its default parameters, with the
paper's stopping rule and over 50 full sweeps."""

import numpy as np
import pandas as pd

from ufsbench import joblog, rank_features
from ufsbench.io import load_data, write_table
from ufsbench.papers import blufs_figures as bf
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0], snakemake.threads)
dataset, p = snakemake.wildcards.dataset, snakemake.params
X, y, _ = load_data(snakemake.input.data)
frames = []
for run, tol in (("paper stopping rule", 1e-4), ("50 sweeps", 0.0)):
    sel = rank_features(X, "blufs", n_clusters=p.n_clusters, feature_counts=[p.n_features],
                        random_state=0, tol=tol)  # fmt: skip
    # Seconds go to the log only: results/tables holds no timings.
    log.info("%s: %d sweeps, %.2f s", run, sel.n_iter, sel.seconds)
    frames.append(
        pd.DataFrame(
            {"run": run, "iteration": np.arange(1, sel.n_iter + 1), "objective": sel.history}
        )
    )
traces = pd.concat(frames, ignore_index=True)
write_table(snakemake.output.tsv, traces)
save_figure(bf.plot_convergence_traces(traces, dataset), snakemake.output.png, snakemake.output.pdf)
