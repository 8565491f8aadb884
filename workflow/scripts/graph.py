"""The k-NN table of one dataset, shared by every graph-based method and weighting."""

from ufsbench import joblog
from ufsbench.graph import SIGMA0, nearest_neighbours, pairwise_distance_scale
from ufsbench.io import load_data, save_knn

log = joblog.setup(snakemake.log[0], snakemake.threads)
X, _, _ = load_data(snakemake.input[0])
neighbours, distances = nearest_neighbours(X, snakemake.params.k)
scales = {name: pairwise_distance_scale(X, name) for name in SIGMA0}
log.info("k=%d nearest neighbours of %d samples; sigma0 %s", neighbours.shape[1], len(X), scales)
save_knn(snakemake.output[0], neighbours, distances, scales)
