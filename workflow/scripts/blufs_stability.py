"""BLUFS paper Fig. 10: k-means ACC of each method's best selection over many runs."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_data, write_table
from ufsbench.papers import blufs_figures as bf
from ufsbench.papers.blufs import PAPER_NAMES
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0], snakemake.threads)
dataset, p = snakemake.wildcards.dataset, snakemake.params
X, y, _ = load_data(snakemake.input.data)
scores = pd.read_csv(snakemake.input.scores, sep="\t")
found = bf.selections_by_method(snakemake.input.selections)
values, rows = {}, []
for method in p.methods:
    sid, s = bf.best_setting(scores, dataset, method)
    accs = bf.stability_runs(X, y, found[method][sid].top(s), n_clusters=p.n_clusters,
                             seed_key=(dataset, method))  # fmt: skip
    values[PAPER_NAMES.get(method, method)] = accs
    rows += [(method, sid, s, r, a) for r, a in enumerate(accs)]
    log.info("%s: ACC %.2f +- %.2f over %d runs", method, accs.mean(), accs.std(), len(accs))
write_table(
    snakemake.output.tsv,
    pd.DataFrame(rows, columns=["method", "params", "n_features", "run", "acc"]),
)
save_figure(bf.plot_stability(values, dataset), snakemake.output.png, snakemake.output.pdf)
