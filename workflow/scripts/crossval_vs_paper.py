"""The cross-validation's test scores beside the paper's Tables 4 and 5."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.reference import load_notes, load_reference, vs_paper

log = joblog.setup(snakemake.log[0])
reference = load_reference(snakemake.params.reference)
notes = load_notes(snakemake.params.notes) if snakemake.params.notes else None
ours = pd.read_csv(snakemake.input[0], sep="\t")
ours = ours[ours["split"] == "test"].drop(columns="split")
table = vs_paper(reference, ours, metric_map=snakemake.params.metric_map, notes=notes)
ran = table.dropna(subset=["ours"])
log.info("%d of %d cells; mean diff %.2f", len(ran), len(table), ran["diff"].mean())
write_table(snakemake.output[0], table)
