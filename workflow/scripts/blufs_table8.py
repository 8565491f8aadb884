"""Table VIII: our seconds against the paper's (MATLAB, hardware not stated: ratios only)."""

import pandas as pd

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.papers.blufs_report import table8, table8_markdown
from ufsbench.reference import load_reference

log = joblog.setup(snakemake.log[0])
ours = pd.concat([read_tsv(f) for f in snakemake.input], ignore_index=True)
table = table8(ours, load_reference(snakemake.params.reference))
write_table(snakemake.output.tsv, table)
write_text(snakemake.output.md, table8_markdown(table))
