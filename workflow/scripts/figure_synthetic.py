"""Scatter of every method's selected pair on one synthetic set (Figs. 3-4)."""

import pandas as pd

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import load_data, write_table
from ufsbench.papers.blufs import PAPER_NAMES
from ufsbench.plots import plot_selected_pairs, save_figure

log = joblog.setup(snakemake.log[0])
X, y, meta = load_data(snakemake.input.data)
table = pd.concat([read_tsv(f) for f in snakemake.input.picks], ignore_index=True)
# Each pick's seconds stay in its own file (results/blufs/synthetic/): timings differ
# between runs, the tables of results/tables do not.
write_table(snakemake.output.tsv, table.drop(columns="seconds", errors="ignore"))
pairs = {PAPER_NAMES.get(r.method, r.method): tuple(int(v) for v in str(r.features).split())[:2]
         for r in table.itertuples()}  # fmt: skip
fig = plot_selected_pairs(X, y, pairs, title=snakemake.wildcards.dataset,
                          informative=meta.get("informative", [0, 1]))  # fmt: skip
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
