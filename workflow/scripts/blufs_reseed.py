"""Re-run the oracle winners (ACC and NMI cells) of one method with this job's seeds."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_data, load_knn, write_table
from ufsbench.methods.registry import get_method
from ufsbench.papers.blufs import oracle_cells
from ufsbench.plan import parse_setting_id
from ufsbench.reseeding import part_seeds, reseed_cells
from ufsbench.tuning import graph_from_knn

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
p = snakemake.params
dataset, method = snakemake.wildcards.dataset, snakemake.wildcards.method
X, y, _ = load_data(snakemake.input.data)
knn = load_knn(snakemake.input.knn) if "knn" in snakemake.input.keys() else None
scores = pd.read_csv(snakemake.input.scores, sep="\t")
cells = oracle_cells(scores[(scores["dataset"] == dataset) & (scores["method"] == method)])
spec = get_method(method)
rows = reseed_cells(
    X, y, method, cells, lambda sid: parse_setting_id(spec, sid),
    dataset=dataset, seeds=part_seeds(snakemake.wildcards.part), n_clusters=p.n_clusters,
    kmeans=p.kmeans, graph_of=graph_from_knn(method, knn, **p.graph), log=log,
)  # fmt: skip
write_table(snakemake.output[0], rows)
