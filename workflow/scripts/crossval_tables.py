"""Mean ± std over draws of the cross-validation, per selection, training size and count."""

import pandas as pd

from ufsbench import joblog
from ufsbench.crossval import summarize
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.papers.crossval_report import crossval_markdown

log = joblog.setup(snakemake.log[0])
results = pd.concat(
    [
        read_tsv(f).assign(protocol=selection)
        for f, selection in zip(snakemake.input, snakemake.params.selections, strict=True)
    ],
    ignore_index=True,
)
table = summarize(results, dataset=snakemake.params.dataset, method=snakemake.params.method)
log.info("%d cells", len(table))
write_table(snakemake.output.tsv, table)
write_text(snakemake.output.md, crossval_markdown(table))
