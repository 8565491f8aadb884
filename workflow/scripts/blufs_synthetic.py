"""Figs. 3-4: one method, default setting, selects n features on a synthetic set."""

import numpy as np
import pandas as pd

from ufsbench import joblog, rank_features
from ufsbench.io import load_data, write_table
from ufsbench.kmeans import cluster
from ufsbench.metrics import clustering_accuracy
from ufsbench.seeding import derive_seed

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
p = snakemake.params
dataset, method = snakemake.wildcards.dataset, snakemake.wildcards.method
X, y, meta = load_data(snakemake.input.data)
n_clusters = len(np.unique(y))
sel = rank_features(X, method, n_clusters=n_clusters, random_state=derive_seed(dataset, method),
                    feature_counts=[p.n_features], n_neighbors=p.k, **p.params)  # fmt: skip
chosen = np.asarray(sel.top(p.n_features))
informative = set(meta.get("informative", [0, 1]))
accs = [clustering_accuracy(y, cluster(X[:, chosen], n_clusters, engine="litekmeans", n_init=10,
        max_iter=50, random_state=derive_seed(dataset, method, r))) for r in range(10)]  # fmt: skip
log.info(
    "%s on %s: features %s, %d informative, k-means ACC %.2f",
    method,
    dataset,
    chosen.tolist(),
    len(informative & set(chosen.tolist())),
    100 * np.mean(accs),
)
write_table(snakemake.output[0], pd.DataFrame({
    "dataset": [dataset], "method": [method], "features": [" ".join(map(str, chosen))],
    "hits": [len(informative & set(chosen.tolist()))], "acc": [100 * np.mean(accs)],
    "acc_std": [100 * np.std(accs, ddof=1)], "seconds": [sel.seconds],
}))  # fmt: skip
