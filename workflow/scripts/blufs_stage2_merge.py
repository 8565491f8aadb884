"""Join the stage-2 parts of one (dataset, method) into its stage-2 selections and scores."""

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import load_selections, save_selections, write_table
from ufsbench.tuning import merge_parts

log = joblog.setup(snakemake.log[0], snakemake.threads)
parts = [
    (load_selections(sel), read_tsv(scores))
    for sel, scores in zip(snakemake.input.selections, snakemake.input.scores, strict=True)
]
selections, scores = merge_parts(parts)
log.info("%d parts: %d settings, %d score rows", len(parts), len(selections), len(scores))
save_selections(snakemake.output.selection, selections)
write_table(snakemake.output.scores, scores)
