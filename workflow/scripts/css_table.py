"""Gather every CSS run: tables of runs, mean ± std, Table 1 and ours vs the paper."""

import pandas as pd

from ufsbench import joblog
from ufsbench.css import table
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.reference import load_notes, load_reference

log = joblog.setup(snakemake.log[0])
runs = pd.concat([read_tsv(f) for f in snakemake.input.runs], ignore_index=True)
traces = [read_tsv(f) for f in snakemake.input.traces]
traces = pd.concat([t for t in traces if not t.empty] or [pd.DataFrame()], ignore_index=True)
summary = table.summarize(runs)
p = snakemake.params
for name, why in p.skipped.items():
    log.warning("dataset %s not run: %s", name, why)
# Seconds apart from the runs: timings differ between runs, results/tables does not.
keys = ["dataset", "method", "params", "k", "seed"]
write_table(snakemake.output.timings, runs[[*keys, "seconds"]])
write_table(snakemake.output.runs, runs.drop(columns="seconds"))
write_table(snakemake.output.summary, summary)
write_table(snakemake.output.anytime, traces)
text = "".join(
    f"## Error ratios at k = {k}\n\n"
    + table.render_markdown(table.table1_wide(summary, k, p.datasets))
    for k in p.ks
)
if p.skipped:  # the paper's datasets this machine could not fetch, with the reason
    text += "\n" + table.render_not_run(p.skipped)
write_text(snakemake.output.markdown, text)
reference = load_reference(snakemake.input.reference)
in_table = summary[summary["dataset"].isin(p.datasets) & summary["k"].isin(p.ks)]
notes = load_notes(snakemake.input.notes) if "notes" in snakemake.input.keys() else None
comparison = table.paper_comparison(in_table, reference)
write_table(
    snakemake.output.paper, table.comparison_with_skipped(comparison, reference, p.skipped, notes)
)
log.info("%d runs, %d summary rows, %d comparison rows", len(runs), len(summary), len(comparison))
