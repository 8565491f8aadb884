"""Cluster one dataset with one method and setting for every seed; ACC and NMI per seed."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_data, load_graph, write_table
from ufsbench.seeding import derive_seed
from ufsbench.sparse_graph import build_graph, cluster_with, scores

log = joblog.setup(snakemake.log[0], snakemake.threads)
p = snakemake.params
X, y, _ = load_data(snakemake.input.data)
if "graph" in snakemake.input.keys():
    W = load_graph(snakemake.input.graph)
elif p.method == "sc":  # the dense kernel graph is cheaper to rebuild than to store
    W, _ = build_graph("sc", X, p.params)
else:
    W = None
rows = []
for repeat in p.seeds:
    seed = derive_seed(p.dataset, p.method, p.setting, repeat)
    labels = cluster_with(p.method, X, p.n_clusters, W=W, seed=seed, **p.options)
    result = scores(y, labels)
    log.info("%s [%s] repeat %d (seed %d): %s", p.method, p.setting, repeat, seed, result)
    rows.append(
        {"dataset": p.dataset, "method": p.method, "setting": p.setting, "seed": repeat, **result}
    )
write_table(snakemake.output[0], pd.DataFrame(rows))
