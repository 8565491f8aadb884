"""Oracle score per reading of a method's interpretation options."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.reference import readings_table

log = joblog.setup(snakemake.log[0])
scores = pd.read_csv(snakemake.input[0], sep="\t")
params = snakemake.params
table = readings_table(scores, params.method, params.readings, defaults=params.defaults)
log.info("readings of %s:\n%s", params.method, table.round(2).to_string())
write_table(snakemake.output[0], table)
