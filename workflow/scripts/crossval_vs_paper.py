"""The cross-validation's test scores beside the paper's Tables 4 and 5.

The first configured selection is compared with the paper; the others stand beside it.
"""

import pandas as pd

from ufsbench import joblog
from ufsbench.crossval import vs_paper_columns
from ufsbench.io import write_table
from ufsbench.reference import load_notes, load_reference, vs_paper

log = joblog.setup(snakemake.log[0])
reference = load_reference(snakemake.params.reference)
notes = load_notes(snakemake.params.notes) if snakemake.params.notes else None
ours = pd.read_csv(snakemake.input[0], sep="\t")
ours = ours[ours["split"] == "test"].drop(columns="split")
primary, *others = snakemake.params.selections
table = vs_paper(
    reference,
    ours,
    metric_map=snakemake.params.metric_map,
    protocol=primary,
    companions=others,
    notes=notes,
    columns=vs_paper_columns(others),
)
ran = table.dropna(subset=["ours"])
log.info("%d of %d cells; mean diff %.2f", len(ran), len(table), ran["diff"].mean())
write_table(snakemake.output[0], table)
