"""Tables II, III, V and VII of the BLUFS paper from our runs, and ours against theirs."""

import pandas as pd

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.papers.blufs import (
    default_best_count_cells,
    default_cells,
    oracle_cells,
    reseed_long,
    versus_paper,
)
from ufsbench.papers.blufs_report import (
    knn_winners,
    table2_markdown,
    table3_markdown,
    table5_markdown,
    table7_markdown,
)
from ufsbench.reference import add_notes, load_notes, load_reference

log = joblog.setup(snakemake.log[0])
p = snakemake.params
scores = pd.read_csv(snakemake.input.scores, sep="\t")
main = scores[~scores["method"].isin(p.ablation)]
cells = oracle_cells(main)
write_table(snakemake.output.cells, cells)
write_text(snakemake.output.table2, table2_markdown(cells))
write_text(snakemake.output.table3, table3_markdown(cells))
# Table V's cells are kept as a TSV too, so that runs over disjoint datasets merge.
with_blufs = scores[scores["method"].isin([*p.ablation, "blufs"])]
ablation = oracle_cells(with_blufs) if p.ablation else cells.iloc[:0]
write_table(snakemake.output.table5_tsv, ablation)
write_text(snakemake.output.table5, table5_markdown(ablation))

knn = pd.concat([read_tsv(f) for f in snakemake.input.knn], ignore_index=True)
best = knn_winners(knn)
write_table(snakemake.output.table7_tsv, best)
write_text(snakemake.output.table7, table7_markdown(best, p.knn))

reference = load_reference(p.reference)
reseeds = [read_tsv(f) for f in snakemake.input.reseeds]
table = versus_paper(
    cells,
    reference,
    reseeds=reseed_long(reseeds),
    defaults=default_cells(main),
    default_best_count=default_best_count_cells(main),
)
knn_ref = versus_paper(best[["dataset", "method", "metric", "mean", "std", "n_features",
                             "params"]], reference, tables=("VII",))  # fmt: skip
if p.ablation:
    table = pd.concat([table, versus_paper(ablation, reference, tables=("V",))
                       .assign(metric=lambda t: t["metric"] + " (Table V)")])  # fmt: skip
table = pd.concat([table, knn_ref], ignore_index=True)
if "notes" in snakemake.input.keys():  # hand-written: why a cell misses
    table = add_notes(table, load_notes(snakemake.input.notes), column="notes")
write_table(snakemake.output.versus, table)
log.info("%d cells compared with the paper", int(table["paper"].notna().sum()))
