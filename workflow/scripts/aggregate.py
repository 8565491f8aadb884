"""Gather every score file (each checked against the plan); apply the protocols; write
the summary tables, and the selection timings apart from them."""

from ufsbench import joblog
from ufsbench.aggregate import (
    curves,
    render_latex,
    render_summary_markdown,
    split_timings,
    summary,
)
from ufsbench.integrity import read_scores
from ufsbench.io import write_table, write_text

log = joblog.setup(snakemake.log[0])
scores, timings = split_timings(read_scores(snakemake.input, snakemake.params.plan))
table = curves(scores, protocols=snakemake.params.protocols)
means = summary(table)
log.info("%d score rows, %d curve points, %d summary cells", len(scores), len(table), len(means))
write_table(snakemake.output.scores, scores)
write_table(snakemake.output.timings, timings)
write_table(snakemake.output.curves, table)
write_table(snakemake.output.summary, means)
write_text(
    snakemake.output.markdown,
    render_summary_markdown(means, repeats=int(scores["repeat"].nunique())),
)
write_text(snakemake.output.latex, render_latex(means))
