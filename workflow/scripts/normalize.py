"""Load one dataset, check it against the registry and apply the configured preprocessing."""

import numpy as np

from ufsbench import joblog
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import load_registry
from ufsbench.io import save_data
from ufsbench.localdata import entry_from_fields, load_local_dataset

log = joblog.setup(snakemake.log[0])
if snakemake.params.entry["source"] == "local":  # a file named in config local_datasets
    entry = entry_from_fields(snakemake.params.entry)
    X, y, info = load_local_dataset(entry)
else:
    entry = load_registry(snakemake.params.registry)[snakemake.wildcards.dataset]
    X, y, info = load_dataset(entry, snakemake.input.raw or None)
X, report = normalize(X, name=entry.name, **snakemake.params.normalize)
log.info("dataset %r: X %s, %s; %s", entry.name, X.shape, snakemake.params.normalize, report)
if y is None:
    if snakemake.params.need_labels:
        raise ValueError(f"dataset {entry.name!r} has no class labels: it cannot be clustered")
    y = np.full(X.shape[0], -1)  # unlabelled (or multilabel): CSS needs no labels
save_data(snakemake.output[0], X, y, dataset=entry.name, preprocessing=report)
