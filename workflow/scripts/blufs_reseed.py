"""Re-run the oracle winners (ACC and NMI cells) of one method with fresh method seeds."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_data, load_knn, write_table
from ufsbench.methods.registry import get_method
from ufsbench.papers.blufs import oracle_cells
from ufsbench.plan import parse_setting_id
from ufsbench.tuning import graph_from_knn, reseed

log = joblog.setup(snakemake.log[0], snakemake.threads)
p = snakemake.params
dataset, method = snakemake.wildcards.dataset, snakemake.wildcards.method
X, y, _ = load_data(snakemake.input.data)
knn = load_knn(snakemake.input.knn) if "knn" in snakemake.input.keys() else None
scores = pd.read_csv(snakemake.input.scores, sep="\t")
cells = oracle_cells(scores[(scores["dataset"] == dataset) & (scores["method"] == method)])
spec = get_method(method)
done, frames = {}, []
for cell in cells.itertuples():
    key = (cell.params, int(cell.n_features))
    if key not in done:
        log.info("%s %s cell: %s at s=%d", method, cell.metric, cell.params, cell.n_features)
        done[key] = reseed(
            X, y, method, parse_setting_id(spec, cell.params), int(cell.n_features),
            dataset=dataset, n_clusters=p.n_clusters, kmeans=p.kmeans, seeds=p.seeds,
            graph_of=graph_from_knn(method, knn, **p.graph), log=log,
        )  # fmt: skip
    frame = done[key].assign(dataset=dataset, method=method, metric=cell.metric,
                             params=cell.params, n_features=int(cell.n_features))  # fmt: skip
    frames.append(frame)
write_table(snakemake.output[0], pd.concat(frames, ignore_index=True))
