"""Objective traces of the iterative methods, one tidy table."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_selections, write_table

log = joblog.setup(snakemake.log[0])
columns = ["dataset", "method", "params", "is_default", "iteration", "objective"]
rows = []
for path, source in zip(snakemake.input, snakemake.params.sources, strict=True):
    for setting, sel in load_selections(path).items():
        default = setting == source["default"]
        for i, objective in enumerate(sel.history, start=1):
            rows.append((source["dataset"], source["method"], setting, default, i, objective))
table = pd.DataFrame(rows, columns=columns)
log.info("%d traces", table.groupby(["dataset", "method", "params"]).ngroups)
write_table(snakemake.output[0], table)
