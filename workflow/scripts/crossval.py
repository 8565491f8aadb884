"""Train/select/test cross-validation of one method at one training size, every
configured selection from one pass over the settings."""

from ufsbench import joblog
from ufsbench.crossval import cross_validate_subsets
from ufsbench.io import load_data, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, y, _ = load_data(snakemake.input.data)
params = snakemake.params
tables = cross_validate_subsets(
    X,
    y,
    params.method,
    params.settings,
    params.subsets,
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
for selection, results in tables.items():
    log.info("%s: mean test ACC %.2f", selection, 100 * results["test_acc"].mean())
    write_table(snakemake.output[selection], results)
