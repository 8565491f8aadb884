"""Paired t-tests of every method against the best, per dataset and protocol."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.stats import paired_ttests, round_ttests

log = joblog.setup(snakemake.log[0])
table = pd.read_csv(snakemake.input[0], sep="\t")
tests = paired_ttests(table[table["metric"] == snakemake.params.metric])
log.info("%d tests for %s", len(tests), snakemake.params.metric)
write_table(snakemake.output[0], round_ttests(tests))
