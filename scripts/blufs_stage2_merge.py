"""Join the stage-2 parts of one (dataset, method) into its stage-2 selections and scores."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import load_selections, save_selections, write_table
from ufsbench.tuning import merge_parts

log = joblog.setup(snakemake.log[0], snakemake.threads)
parts = [
    (load_selections(sel), pd.read_csv(scores, sep="\t"))
    for sel, scores in zip(snakemake.input.selections, snakemake.input.scores, strict=True)
]
selections, scores = merge_parts(parts)
log.info("%d parts: %d settings, %d score rows", len(parts), len(selections), len(scores))
save_selections(snakemake.output.selection, selections)
write_table(snakemake.output.scores, scores)
