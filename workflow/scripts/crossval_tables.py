"""Mean ± std over draws of the cross-validation, per training size and feature count."""

import pandas as pd

from ufsbench import joblog
from ufsbench.crossval import render_markdown, summarize
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text

log = joblog.setup(snakemake.log[0])
results = pd.concat([read_tsv(f) for f in snakemake.input], ignore_index=True)
table = summarize(results, dataset=snakemake.params.dataset, method=snakemake.params.method)
log.info("%d cells", len(table))
write_table(snakemake.output.tsv, table)
blocks = [render_markdown(table, m, s) for s in ("test", "train") for m in ("acc", "nmi_sqrt")]
write_text(snakemake.output.md, "\n".join(blocks))
