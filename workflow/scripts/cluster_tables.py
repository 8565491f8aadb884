"""The clustering summary, every setting's scores, the paper's Tables 1-3 and
ours-vs-paper."""

from ufsbench import joblog
from ufsbench.clustering import (
    compare_with_paper,
    paper_table_markdown,
    per_setting,
    read_scores,
    summarize,
)
from ufsbench.io import write_table, write_text
from ufsbench.reference import load_notes, load_reference

log = joblog.setup(snakemake.log[0], snakemake.threads)
for name, reason in snakemake.params.skipped.items():
    log.warning("dataset %s skipped: %s", name, reason)
scores = read_scores(snakemake.input.scores)
settings = per_setting(scores)
summary = summarize(scores, snakemake.params.select, settings)
write_table(snakemake.output.summary, summary)
write_table(snakemake.output.settings, settings)
notes = load_notes(snakemake.input.notes) if "notes" in snakemake.input.keys() else None
comparison = compare_with_paper(
    summary, load_reference(snakemake.input.reference), dict(snakemake.params.skipped), notes
)
write_table(snakemake.output.comparison, comparison)
for path, table in zip(snakemake.output.tables, ["1", "2", "3"], strict=True):
    write_text(path, paper_table_markdown(comparison, table))
log.info("%d cells compared with the paper", len(comparison))
