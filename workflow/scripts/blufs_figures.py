"""BLUFS paper Figs. 8-11: one script, the rule's name says which figure."""

import numpy as np
import pandas as pd

from ufsbench import joblog, rank_features
from ufsbench.io import load_data, load_selections, write_table
from ufsbench.papers import blufs_figures as bf
from ufsbench.papers.blufs import PAPER_NAMES
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0], snakemake.threads)
rule, dataset = snakemake.rule, snakemake.wildcards.dataset
p = snakemake.params


def selections():
    out = {}
    for path in snakemake.input.selections:
        method = path.split("/")[-3]
        out.setdefault(method, {}).update(load_selections(path))
    return out


if rule == "blufs_sensitivity":
    scores = pd.read_csv(snakemake.input[0], sep="\t")
    grids, s = bf.sensitivity_grids(scores, dataset)
    fig = bf.plot_sensitivity(grids, dataset, s)
elif rule == "blufs_stability":
    X, y, _ = load_data(snakemake.input.data)
    scores, found = pd.read_csv(snakemake.input.scores, sep="\t"), selections()
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
    fig = bf.plot_stability(values, dataset)
elif rule == "blufs_correlation":
    X, y, _ = load_data(snakemake.input.data)
    scores, found = pd.read_csv(snakemake.input.scores, sep="\t"), selections()
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
    fig = bf.plot_correlation(matrices, dataset)
else:  # blufs_convergence: default parameters, with the stopping rule and 50 full sweeps
    X, y, _ = load_data(snakemake.input.data)
    frames = []
    for run, tol in (("paper stopping rule", 1e-4), ("50 sweeps", 0.0)):
        sel = rank_features(X, "blufs", n_clusters=p.n_clusters, feature_counts=[p.n_features],
                            random_state=0, tol=tol)  # fmt: skip
        # Seconds go to the log only: results/tables holds no timings.
        log.info("%s: %d sweeps, %.2f s", run, sel.n_iter, sel.seconds)
        frames.append(
            pd.DataFrame(
                {
                    "run": run,
                    "iteration": np.arange(1, sel.n_iter + 1),
                    "objective": sel.history,
                }
            )
        )
    traces = pd.concat(frames, ignore_index=True)
    write_table(snakemake.output.tsv, traces)
    fig = bf.plot_convergence_traces(traces, dataset)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
