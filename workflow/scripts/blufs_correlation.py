"""BLUFS paper Fig. 8: correlation of each method's selected features."""

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
matrices, rows = {}, []
for method in p.methods:
    sid, s = bf.best_setting(scores, dataset, method, n_features=p.n_features)
    features = found[method][sid].top(s)
    R, score = bf.redundancy(X, features)
    matrices[PAPER_NAMES.get(method, method)] = (R, score)
    rows.append((method, sid, s, " ".join(map(str, features)), score))
    log.info("%s: mean |r| %.3f over features %s", method, score, features.tolist())
write_table(
    snakemake.output.tsv,
    pd.DataFrame(rows, columns=["method", "params", "n_features", "features", "mean_abs_r"]),
)
save_figure(bf.plot_correlation(matrices, dataset), snakemake.output.png, snakemake.output.pdf)
