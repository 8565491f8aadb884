"""Friedman test, Nemenyi post-hoc and the critical-difference diagram (Fig. 7) on ACC."""

import pandas as pd

from ufsbench import joblog
from ufsbench.io import write_table
from ufsbench.papers.blufs_report import friedman_outputs
from ufsbench.plots import save_figure

log = joblog.setup(snakemake.log[0])
cells = pd.read_csv(snakemake.input[0], sep="\t")
ranks, pairwise, figure, message = friedman_outputs(cells, alpha=snakemake.params.alpha)
# A run restricted to one dataset (or one method) has nothing to rank: the log says so.
(log.info if ranks["mean_rank"].notna().any() else log.warning)(message)
write_table(snakemake.output.tsv, ranks)
write_table(snakemake.output.pairwise, pairwise)
save_figure(figure, snakemake.output.png, snakemake.output.pdf)
