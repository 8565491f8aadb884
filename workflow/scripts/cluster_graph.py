"""Build one sparse sample graph (l1-graph, SRSG, LR-l1-graph, SMCE or k-NN) of a dataset."""

import json

from ufsbench import joblog
from ufsbench.io import load_data, save_graph, write_text
from ufsbench.sparse_graph import build_graph

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, _, _ = load_data(snakemake.input.data)
method, params = snakemake.params.method, snakemake.params.params
log.info("%s graph of %d x %d samples, parameters %s", method, *X.shape, params)
W, info = build_graph(method, X, params, n_jobs=snakemake.threads)
log.info(
    "%s: %.2f s, nnz per row %.2f, isolated samples %d",
    method,
    info["seconds"],
    info["nnz_per_row"],
    info["n_isolated"],
)
save_graph(snakemake.output.graph, W)
write_text(snakemake.output.info, json.dumps(info, indent=1, sort_keys=True, default=float))
