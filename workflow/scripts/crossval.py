"""Train/select/test cross-validation of one method at one training size."""

from ufsbench import joblog
from ufsbench.crossval import cross_validate
from ufsbench.io import load_data, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, y, _ = load_data(snakemake.input.data)
params = snakemake.params
results = cross_validate(
    X,
    y,
    params.method,
    params.settings,
    n_train=params.n_train,
    draws=params.draws,
    feature_counts=params.feature_counts,
    n_clusters=params.n_clusters,
    select_by=params.select_by,
    k=params.k,
    **params.kmeans,
    seed_key=(snakemake.wildcards.dataset, params.method),
    log=log,
)
log.info("mean test ACC %.2f", 100 * results["test_acc"].mean())
write_table(snakemake.output[0], results)
