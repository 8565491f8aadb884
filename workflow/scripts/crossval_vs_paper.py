"""The cross-validation's test scores beside the paper's Tables 4 and 5.

The first configured selection is compared with the paper; the others stand beside it.
"""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.papers.crossval_report import crossval_versus
from ufsbench.reference import load_notes, load_reference

log = joblog.setup(snakemake.log[0])
table = crossval_versus(
    pd.read_csv(snakemake.input[0], sep="\t"),
    load_reference(snakemake.params.reference),
    selections=snakemake.params.selections,
    metric_map=snakemake.params.metric_map,
    notes=load_notes(snakemake.params.notes) if snakemake.params.notes else None,
)
ran = table.dropna(subset=["ours"])
log.info("%d of %d cells; mean diff %.2f", len(ran), len(table), ran["diff"].mean())
write_table(snakemake.output[0], table)
