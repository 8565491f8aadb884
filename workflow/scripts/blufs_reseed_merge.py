"""One method's re-seeding table from its parts (one per seed, or one for all seeds)."""

from ufsbench import joblog
from ufsbench.reseeding import merge_parts

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
merge_parts(snakemake.input, snakemake.output[0])
log.info("merged %d re-seeding parts into %s", len(snakemake.input), snakemake.output[0])
