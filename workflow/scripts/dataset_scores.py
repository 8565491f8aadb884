"""One dataset's scores (stage 1, then stage 2), rows as the run's table holds them: the
input of the per-dataset analyses, so another dataset joining the run re-runs none."""

from ufsbench import joblog
from ufsbench.aggregate import split_timings
from ufsbench.integrity import read_scores
from ufsbench.io import write_table

log = joblog.setup(snakemake.log[0])
scores, _ = split_timings(read_scores(snakemake.input, snakemake.params.plan))
log.info("%s: %d score rows", snakemake.wildcards.dataset, len(scores))
write_table(snakemake.output[0], scores)
