"""Our numbers beside the paper's, with the default-setting result and the random control."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.reference import (
    fidelity_summary,
    load_notes,
    load_reference,
    random_controls,
    vs_paper,
)

log = joblog.setup(snakemake.log[0])
params = snakemake.params
reference = load_reference(params.reference)
# Only the cells this run can answer: a dataset or method subset leaves the rest out.
keep = reference["dataset"].isin(params.datasets) & reference["method"].isin(params.methods)
reference = reference[keep.to_numpy()]
summary = pd.read_csv(snakemake.input.summary, sep="\t")
scores = pd.read_csv(snakemake.input.scores, sep="\t")
controls = None
if params.control in set(scores["method"]):
    controls = random_controls(scores, control=params.control)
else:
    log.info("no %r method ran: the random control is left empty", params.control)
notes = load_notes(params.notes) if params.notes else None
table = vs_paper(
    reference,
    summary,
    metric_map=params.metric_map,
    protocol=params.protocol,
    controls=controls,
    notes=notes,
)
fidelity = fidelity_summary(table)
for row in fidelity.itertuples():
    log.info(
        "%s %s %s: %d cells, mean diff %.2f, max |diff| %.2f",
        row.table,
        row.method,
        row.metric,
        row.cells,
        row.mean_diff,
        row.max_abs_diff,
    )
write_table(snakemake.output.table, table)
write_table(snakemake.output.fidelity, fidelity)
