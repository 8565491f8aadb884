"""Rank the features of one dataset with one method, for every setting of a chunk."""

from ufsbench import joblog, rank_features
from ufsbench.io import knn_affinity, load_data, load_graph, load_knn, save_selections

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, _, _ = load_data(snakemake.input.data)
knn = load_knn(snakemake.input.knn) if "knn" in snakemake.input.keys() else None
# A sparse graph of the clustering task (config graph.source) replaces the k-NN graph;
# connect x (binary k-NN graph) keeps its isolated samples at a positive degree.
source = load_graph(snakemake.input.graph) if "graph" in snakemake.input.keys() else None
if source is not None and snakemake.params.connect:
    source = (source + snakemake.params.connect * knn_affinity(knn, weight="binary")).tocsr()
method = snakemake.params.method
selections = {}
for job in snakemake.params.jobs:
    graph = knn_affinity(knn, **job["graph"]) if job["graph"] else None
    if graph is not None and source is not None:
        graph = source
    sel = rank_features(
        X,
        method,
        graph=graph,
        n_clusters=snakemake.params.n_clusters,
        random_state=job["seed"],
        feature_counts=snakemake.params.feature_counts,
        **job["hyper"],
    )
    log.info("%s [%s]: %.3f s, %d iterations", method, job["id"], sel.seconds, sel.n_iter)
    for i, objective in enumerate(sel.history, start=1):
        log.info("  iteration %d objective %.10g", i, objective)
    selections[job["id"]] = sel
save_selections(snakemake.output[0], selections)
