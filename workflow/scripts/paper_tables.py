"""One of the paper's result tables (mean ± std (p) per dataset and method)."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table, write_text
from ufsbench.papers.tables import paper_table, render_latex, render_markdown, table_title

log = joblog.setup(snakemake.log[0])
curves = pd.read_csv(snakemake.input[0], sep="\t")
metric, protocol = snakemake.params.metric, snakemake.params.protocol
table = paper_table(curves, metric, methods=snakemake.params.methods, protocol=protocol)
title = table_title(metric, protocol)
log.info("%s: %d cells", title, len(table))
write_table(snakemake.output.tsv, table)
write_text(snakemake.output.md, render_markdown(table, title, labels=snakemake.params.labels))
write_text(snakemake.output.tex, render_latex(table, title, labels=snakemake.params.labels))
