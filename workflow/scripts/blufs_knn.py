"""Table VII: kNN classification on the features of the clustering-ACC winner at each count."""

import pandas as pd

from ufsbench import joblog
from ufsbench.evaluate import knn_classification
from ufsbench.io import load_data, load_selections, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads)
p = snakemake.params
dataset, method = snakemake.wildcards.dataset, snakemake.wildcards.method
X, y, _ = load_data(snakemake.input.data)
selections = {}
for path in snakemake.input.selections:
    selections.update(load_selections(path))
scores = pd.read_csv(snakemake.input.scores, sep="\t")
mine = scores[(scores["dataset"] == dataset) & (scores["method"] == method)]
mine = mine[mine["in_grid"].astype(bool)]
means = mine.groupby(["n_features", "params"], sort=False)["acc"].mean().reset_index()
frames = []
for m, at_m in means.groupby("n_features"):
    sid = at_m.loc[at_m["acc"].idxmax(), "params"]
    rows = knn_classification(
        X, y, selections[sid], [int(m)], splits=p.knn["splits"], test_size=p.knn["test_size"],
        k=p.knn["k"], seed_key=(dataset,),
    )  # fmt: skip
    log.info("%s s=%d [%s]: kNN accuracy %.2f", method, m, sid, 100 * rows["accuracy"].mean())
    frames.append(rows.assign(dataset=dataset, method=method, params=sid))
write_table(snakemake.output[0], pd.concat(frames, ignore_index=True))
