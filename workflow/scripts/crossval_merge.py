"""One training size's cross-validation tables: its draws' rows, in draw order."""

from ufsbench import joblog
from ufsbench.crossval import merge_draw_tables

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
for selection, output in snakemake.output.items():
    draws = snakemake.input[selection]
    merge_draw_tables(draws, output)
    log.info("%s: %d draws -> %s", selection, len(draws), output)
